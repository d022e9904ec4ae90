/**
 * Business identities of settlement (architecture, "Workflows"): one payout per run. The runs'
 * workflow ids are in workflows/contract.ts.
 */

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
