import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import { newId } from '../domain/ids';
import { payoutIdempotencyKey } from '../domain/settlement-ids';

export type PayoutStatus = 'pending' | 'submitted' | 'paid' | 'failed';

export interface PayoutRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  settlement_run_id: string;
  amount: number;
  currency: 'ISK';
  destination_account: string;
  destination_kennitala: string;
  idempotency_key: string;
  end_to_end_id: string;
  channel: string;
  file_name: string | null;
  status: PayoutStatus;
  bank_entry_id: number | null;
  submitted_at: Date | null;
  paid_at: Date | null;
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
  /** Read with `findByRun` and `byRuns`: the camt.053 entry that booked the payout, once matched. */
  bank_entry?: PayoutBankEntry | null;
}

/** The statement (camt.053) entry a payout was matched to (decision 0241). */
export interface PayoutBankEntry {
  id: number;
  acct_svcr_ref: string | null;
  end_to_end_id: string | null;
  booking_date: string | null;
  value_date: string | null;
  amount: number;
  credit: boolean;
  file: string;
}

/** Payouts with the statement entry their debit was matched to (its own row, its file's name). */
function withBankEntry(db: Db) {
  return db('payouts as p')
    .leftJoin('bank_entries as be', 'be.id', 'p.bank_entry_id')
    .leftJoin('bank_files as bf', 'bf.id', 'be.bank_file_id')
    .select(
      'p.*',
      db.raw(`case when be.id is null then null else json_build_object(
        'id', be.id, 'acct_svcr_ref', be.acct_svcr_ref, 'end_to_end_id', be.end_to_end_id,
        'booking_date', be.booking_date, 'value_date', be.value_date, 'amount', be.amount,
        'credit', be.credit, 'file', bf.name) end as bank_entry`),
    );
}

export interface NewPayout {
  runId: string;
  amount: number;
  destinationAccount: string;
  destinationKennitala: string;
  channel: string;
}

/** Where a merchant's payouts go: its bank account and kennitala, both required. */
export interface PayoutDestination {
  bankAccount: string;
  kennitala: string;
}

/** The merchant's payout destination as it is now, or undefined when either part is missing. */
export async function findPayoutDestination(
  db: Db,
  merchantId: string,
): Promise<PayoutDestination | undefined> {
  const merchant = await db<{ id: string; bank_account: string | null; kennitala: string | null }>(
    'merchants',
  )
    .where({ id: merchantId })
    .first('bank_account', 'kennitala');
  if (!merchant?.bank_account || !merchant.kennitala) return undefined;
  return { bankAccount: merchant.bank_account, kennitala: merchant.kennitala };
}

/** Payouts: one per settlement run, keyed `{stl_id}:payout`; every method takes the tenancy Scope. */
export function createPayoutRepository(knex: Knex) {
  const payouts = (db: Db, scope: Scope) =>
    db<PayoutRow>('payouts').where({ merchant_id: scope.merchantId, livemode: scope.livemode });

  return {
    async find(scope: Scope, id: string, db: Db = knex): Promise<PayoutRow | undefined> {
      return payouts(db, scope).where({ id }).first();
    },

    async findByRun(scope: Scope, runId: string, db: Db = knex): Promise<PayoutRow | undefined> {
      return (await withBankEntry(db)
        .where({
          'p.merchant_id': scope.merchantId,
          'p.livemode': scope.livemode,
          'p.settlement_run_id': runId,
        })
        .first()) as PayoutRow | undefined;
    },

    /** Fails the run's payout if it is still unsent (`pending`), with the reason. */
    async failUnsent(scope: Scope, runId: string, reason: string, now: Date, db: Db = knex): Promise<void> {
      await payouts(db, scope)
        .where({ settlement_run_id: runId })
        .whereIn('status', ['pending'])
        .update({ status: 'failed', failure_reason: reason, updated_at: now });
    },

    /** The payouts of several runs of one environment (operator lists), by run id. */
    async byRuns(livemode: boolean, runIds: string[]): Promise<Map<string, PayoutRow>> {
      if (runIds.length === 0) return new Map();
      const rows = (await withBankEntry(knex)
        .where({ 'p.livemode': livemode })
        .whereIn('p.settlement_run_id', runIds)) as PayoutRow[];
      return new Map(rows.map((r) => [r.settlement_run_id, r]));
    },

    /**
     * Writes the run's payout once: a retry finds the row its first attempt wrote (unique
     * idempotency key) and returns it unchanged. The payout id is also its pain.001 EndToEndId.
     */
    async createOnce(scope: Scope, input: NewPayout, db: Db = knex): Promise<PayoutRow> {
      const id = newId('po');
      const [inserted] = await db<PayoutRow>('payouts')
        .insert({
          id,
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          settlement_run_id: input.runId,
          amount: input.amount,
          destination_account: input.destinationAccount,
          destination_kennitala: input.destinationKennitala,
          idempotency_key: payoutIdempotencyKey(input.runId),
          end_to_end_id: id,
          channel: input.channel,
        })
        .onConflict('idempotency_key')
        .ignore()
        .returning('*');
      if (inserted) return inserted;
      return (await payouts(db, scope)
        .where({ idempotency_key: payoutIdempotencyKey(input.runId) })
        .first())!;
    },

    async markSubmitted(
      scope: Scope,
      id: string,
      fileName: string,
      db: Db = knex,
    ): Promise<PayoutRow | undefined> {
      const now = new Date();
      const [row] = await payouts(db, scope)
        .where({ id, status: 'pending' })
        .update({ status: 'submitted', file_name: fileName, submitted_at: now, updated_at: now })
        .returning('*');
      return row;
    },

    /**
     * A failed or pending payout of a run being retried goes back to `pending`, addressed to the
     * merchant's account as it is now; only while it is still in `fromStatus`.
     */
    async readdress(
      scope: Scope,
      id: string,
      fromStatus: PayoutStatus,
      destination: PayoutDestination,
      db: Db = knex,
    ): Promise<void> {
      await payouts(db, scope).where({ id, status: fromStatus }).update({
        status: 'pending',
        failure_reason: null,
        destination_account: destination.bankAccount,
        destination_kennitala: destination.kennitala,
        updated_at: new Date(),
      });
    },
  };
}

export type PayoutRepository = ReturnType<typeof createPayoutRepository>;
