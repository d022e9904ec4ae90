import type { Knex } from '../../db/knex';
import type { ClaimsApi } from '../../adapters/banks/claims-api';
import { BankError } from '../../adapters/banks/claims-errors';
import { createClaimPaymentRepository } from '../../db/claim-payments';
import { creditCancelledClaim } from '../invoices/issue';

/**
 * Claims cancelled at the bank (by the bank or the payer) appear in no transaction: the status of
 * each unpaid claim of the environment due since `dateFrom` is read (GET claim, `claimStatus:
 * Cancelled`), and each cancelled one is marked cancelled with its checkout session unpaid, in a
 * transaction of its own. The ids of the claims this call cancelled, and the channels of the events
 * it recorded (credit notes) to wake.
 */
export async function markClaimsCancelledAtBank(
  knex: Knex,
  bank: ClaimsApi,
  input: { livemode: boolean; dateFrom: string },
): Promise<{ cancelled: string[]; channels: string[] }> {
  const payments = createClaimPaymentRepository(knex);
  const cancelled: string[] = [];
  const channels: string[] = [];
  const unpaid = await payments.listUnpaidDueSince(input.dateFrom, input.livemode);
  for (const c of unpaid) {
    // A claim the bank does not know (404) is left as it is.
    const details = await bank.getClaim(c.bank_claim_id).catch((err: unknown) => {
      if (err instanceof BankError && err.status === 404) return null;
      throw err;
    });
    if (details?.claimStatus !== 'Cancelled') continue;
    // Marked cancelled, its checkout session unpaid and its invoice credited (decision 0211), at once.
    const marked = await knex.transaction(async (trx) => {
      const row = await payments.markCancelledAtBank(c.id, trx);
      if (row) channels.push(...(await creditCancelledClaim(trx, row)));
      return row;
    });
    if (marked) cancelled.push(c.id);
  }
  return { cancelled, channels };
}
