import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { BankConnection } from '../../adapters/banks/bank-connections';
import { createPain001SftpChannel, type PayoutChannel } from '../../adapters/banks/payout-channel';
import { accountDigits } from '../../domain/settlement-ids';
import { createSettlementRunRepository } from '../../db/settlement-runs';
import { createPayoutRepository, findPayoutDestination } from '../../db/payouts';
import { refundTransfersOfRun } from '../../db/claim-refunds';
import { createMerchantRepository } from '../../db/merchants';
import { createPayoutAccountChangeRepository } from '../../db/payout-account-changes';
import { FailureType } from '../../workflows/contract';
import { StepFailure } from '../step-failure';
import { createSettlementRunFailure } from './settlement-run-failure';
import { runMissing, scopeOf, type RunKey, type SettlementRunStatus } from './settlement-run-ref';

export interface PayoutDeps {
  knex: Knex;
  log: Logger;
  /** Connections whose SFTP outbox takes payout files; the one of the run's environment is used. */
  bankConnections?: BankConnection[] | undefined;
  /** Overrides the channel per environment (tests, or a second channel such as IOBWS 3.2 payments). */
  payoutChannel?: ((livemode: boolean) => PayoutChannel | undefined) | undefined;
}

/** An approved run's payout: written once, then handed to the bank with the run's krafa refunds. */
export function createPayouts(deps: PayoutDeps) {
  const runs = createSettlementRunRepository(deps.knex);
  const payouts = createPayoutRepository(deps.knex);
  const merchants = createMerchantRepository(deps.knex);
  const accountChanges = createPayoutAccountChangeRepository(deps.knex);
  const failRun = createSettlementRunFailure(deps);
  const channelFor = (livemode: boolean): PayoutChannel | undefined => {
    if (deps.payoutChannel) return deps.payoutChannel(livemode);
    const connection = deps.bankConnections?.find((c) => c.livemode === livemode);
    return connection && createPain001SftpChannel(connection);
  };

  return {
    /**
     * Writes the approved run's payout once (`{stl_id}:payout`) to the merchant's bank account as
     * it is now. A merchant without an account or kennitala fails the run with that reason.
     */
    async write(key: RunKey): Promise<{ payoutId: string } | { status: 'failed' | 'payout_held' }> {
      const scope = scopeOf(key);
      const run = await runs.find(scope, key.runId);
      if (!run) throw runMissing(`no settlement run ${key.runId}`);
      const existing = await payouts.findByRun(scope, key.runId);
      if (existing) return { payoutId: existing.id };
      if (run.status !== 'approved')
        throw new StepFailure(`run ${run.id} is ${run.status}, not approved`, FailureType.SettlementRunState);
      const destination = await findPayoutDestination(deps.knex, key.merchantId);
      if (!destination)
        return { status: await failRun(key, 'The merchant has no bank account and kennitala to pay out to') };
      // A changed account waits out its hold unless an owner confirmed it (decision 0228): the run
      // stays approved and its workflow re-reads it when woken by the confirmation, or hourly.
      if (await accountChanges.holdOn(key.merchantId, destination.bankAccount))
        return { status: 'payout_held' as const };
      const channel = channelFor(key.livemode);
      if (!channel)
        return {
          status: await failRun(
            key,
            `No payout channel (bank connection) for ${key.livemode ? 'live' : 'test'} mode`,
          ),
        };
      const payout = await payouts.createOnce(scope, {
        runId: run.id,
        amount: run.net,
        destinationAccount: destination.bankAccount,
        destinationKennitala: destination.kennitala,
        channel: channel.name,
      });
      return { payoutId: payout.id };
    },

    /**
     * Hands the payout to its channel and marks payout and run submitted, in one transaction after
     * the upload. A retry after a lost answer uploads the same file name, which the channel treats as
     * delivered; a payout already submitted is not sent again.
     */
    async submit(key: RunKey & { payoutId: string }): Promise<SettlementRunStatus> {
      const scope = scopeOf(key);
      const payout = await payouts.find(scope, key.payoutId);
      const run = await runs.find(scope, key.runId);
      if (!payout || !run) throw runMissing('payout or run missing');
      if (payout.status !== 'pending') return run.status;
      const channel = channelFor(key.livemode);
      if (!channel) return failRun(key, 'No payout channel (bank connection) for this mode');
      const merchant = await merchants.findById(key.merchantId);
      const merchantName = merchant?.name ?? key.merchantId;
      // The krafa refunds this run nets go back to their payers in the same file (decision 0101).
      const refunds = (await refundTransfersOfRun(deps.knex, scope, run.id)).map((r) => ({
        refundId: r.refundId,
        amount: r.amount,
        creditor: { name: r.name ?? r.kennitala, kennitala: r.kennitala, account: r.account },
        remittance: `Refund ${r.refundId} ${merchantName}`.slice(0, 140),
      }));
      const { fileName } = await channel.submit({
        runId: run.id,
        payoutId: payout.id,
        amount: payout.amount,
        requestedDate: run.settlement_date,
        createdAt: payout.created_at,
        creditor: {
          name: merchantName,
          kennitala: payout.destination_kennitala,
          account: accountDigits(payout.destination_account),
        },
        refunds,
      });
      return deps.knex.transaction(async (trx) => {
        await payouts.markSubmitted(scope, payout.id, fileName, trx);
        const submitted = await runs.transition(
          scope,
          run.id,
          ['approved'],
          { status: 'submitted', submitted_at: new Date() },
          trx,
        );
        return submitted?.status ?? (await runs.find(scope, run.id, trx))!.status;
      });
    },
  };
}

export type Payouts = ReturnType<typeof createPayouts>;
