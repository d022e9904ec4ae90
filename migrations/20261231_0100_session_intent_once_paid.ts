import type { Knex } from 'knex';

/**
 * A checkout session names its payment intent only once payment completes (spec §2.1, decision
 * 0204). Sessions that never completed named the intent of a declined or unfinished card attempt;
 * the intent keeps its own `checkout_session_id`, so nothing is lost by clearing the session's.
 */
export async function up(knex: Knex): Promise<void> {
  await knex('checkout_sessions')
    .whereNot({ status: 'complete' })
    .whereNotNull('payment_intent_id')
    .update({ payment_intent_id: null });
}

/** Nothing to restore: the intents still name their sessions. */
export async function down(): Promise<void> {}
