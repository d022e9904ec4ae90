import type { Knex } from 'knex';

// Subscription sign-up through checkout (decision 0050): a third session mode, what the session
// will subscribe to (price, quantity, trial, metadata), and the subscription it created.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table checkout_sessions drop constraint checkout_sessions_mode_check;
    alter table checkout_sessions
      add constraint checkout_sessions_mode_check check (mode in ('payment', 'setup', 'subscription')),
      add column subscription_data jsonb,
      add foreign key (subscription_id) references subscriptions (id),
      add constraint checkout_sessions_subscription_data_check
        check ((mode = 'subscription') = (subscription_data is not null));
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table checkout_sessions drop constraint checkout_sessions_subscription_id_fkey;
    alter table checkout_sessions drop constraint checkout_sessions_subscription_data_check;
    alter table checkout_sessions drop column subscription_data;
    alter table checkout_sessions drop constraint checkout_sessions_mode_check;
    alter table checkout_sessions add constraint checkout_sessions_mode_check check (mode in ('payment', 'setup'));
  `);
}
