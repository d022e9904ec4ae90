/**
 * Business identities of settlement workflows (architecture, "Workflows"): one run per merchant per
 * Iceland banking day, one settlement day per environment and date.
 */

const env = (livemode: boolean) => (livemode ? 'live' : 'test');

/** `settlement/{test|live}/{merchant_id}/{yyyy-mm-dd}`. */
export function settlementRunWorkflowId(
  livemode: boolean,
  merchantId: string,
  settlementDate: string,
): string {
  return `settlement/${env(livemode)}/${merchantId}/${settlementDate}`;
}

/** `settlement-day/{test|live}/{yyyy-mm-dd}`. */
export function settlementDayWorkflowId(livemode: boolean, settlementDate: string): string {
  return `settlement-day/${env(livemode)}/${settlementDate}`;
}

/** The payout's idempotency key: one payout per run, whatever retries happen. */
export function payoutIdempotencyKey(runId: string): string {
  return `${runId}:payout`;
}

/** A 4-2-6 Icelandic account as the 12 digits ISO 20022 `Othr/Id` carries. */
export function accountDigits(account: string): string {
  const digits = account.replace(/-/g, '');
  if (!/^[0-9]{12}$/.test(digits)) throw new RangeError(`not a 4-2-6 bank account: ${account}`);
  return digits;
}
