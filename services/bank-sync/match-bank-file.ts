import type { Knex } from '../../db/knex';
import { createBankMatchingRepository, type FileRef } from '../../db/bank-matching';
import {
  matchDeposits,
  matchLumpSums,
  matchPayouts,
  matchRefundTransfers,
  type ConfirmedPayout,
} from './statement-matching';
import { recordBankCostsOfFile } from '../../db/payment-costs';

export type { ConfirmedPayout } from './statement-matching';

export interface MatchResult {
  claimPayments: number;
  lumpSums: number;
  deposits: number;
  payouts: ConfirmedPayout[];
  /** Krafa refunds whose transfer was booked (decision 0101). */
  refunds: number;
  exceptions: number;
  /** Notification channels with new deliveries (`refund.updated`), to wake after commit. */
  wake: string[];
}

/**
 * Matches one file's booked entries, set-based, inside the transaction that stored them (decision
 * 0090, 0092). Order matters: entries of a foreign account and reversals are set aside first, then
 * claim payments (with the bank's charge for each, a cost recorded once), lump sums (this
 * statement's, and earlier statements' still waiting for this notification), acquirer deposits,
 * payouts and krafa refund transfers are matched, and whatever booked entry is left becomes an
 * `unmatched` exception. `bank_matches` is unique per object, so a payment seen in a second file can
 * never count twice.
 */
export async function matchBankFile(
  trx: Knex.Transaction,
  f: FileRef,
  timings: Record<string, number> = {},
): Promise<MatchResult> {
  const repo = createBankMatchingRepository(trx);
  let exceptions = 0;
  let mark = Date.now();
  const lap = (step: string) => {
    timings[step] = Date.now() - mark;
    mark = Date.now();
  };

  exceptions += await repo.setAsideForeignAccounts(f);
  exceptions += await repo.setAsideReversals(f);
  await repo.collectOpenDetails(f);

  lap('details');
  const claimPayments = await repo.matchClaimPayments(f);
  exceptions += claimPayments.exceptions;
  lap('claimPayments');
  // The bank's charge for each claim payment it reported is a cost added on top (decision 0113).
  await recordBankCostsOfFile(trx, f);
  lap('bankCosts');
  const lumpSums = await matchLumpSums(trx, f);
  exceptions += lumpSums.exceptions;
  // A notification file also answers earlier statements' lump sums still waiting for it.
  const lateLumpSums = await repo.matchLateNotifications(f);
  exceptions += lateLumpSums.exceptions;
  const deposits = await matchDeposits(trx, f);
  exceptions += deposits.exceptions;
  lap('deposits');
  const payouts = await matchPayouts(trx, f);
  exceptions += payouts.exceptions;
  const wake: string[] = [];
  const refunds = await matchRefundTransfers(trx, f, wake);
  exceptions += refunds.exceptions;

  exceptions += await repo.setAsideUnmatched(f);
  lap('rest');
  return {
    claimPayments: claimPayments.matched,
    lumpSums: lumpSums.matched + lateLumpSums.matched,
    deposits: deposits.matched,
    payouts: payouts.confirmed,
    refunds: refunds.matched,
    exceptions,
    wake,
  };
}

/** Whether a statement's account (a BBAN, formatted or not, or an Icelandic IBAN) is the collection account. */
export function isCollectionAccount(account: string, collectionAccount: string): boolean {
  const digits = collectionAccount.replace(/\D/g, '');
  if (/^IS[0-9]{24}$/.test(account)) return account.slice(4, 16) === digits;
  return account.replace(/\D/g, '') === digits;
}
