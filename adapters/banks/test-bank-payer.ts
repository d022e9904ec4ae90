/**
 * The test environment's bank as a payer uses it: pays a krafa. Only the simulated bank offers it
 * (`POST /_sim/bank/claims/{claimId}/pay`); a real bank is paid by real people.
 */
export interface TestBankPayer {
  /** Pays `amount` (default: all that is due) of the bank's claim `claimId`. */
  payClaim(claimId: string, amount?: number): Promise<void>;
}

/** The bank refused the payment (unknown, already paid or cancelled claim); `message` is the bank's. */
export class TestBankPaymentError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

export function createTestBankPayer(baseUrl: string): TestBankPayer {
  return {
    async payClaim(claimId, amount) {
      const res = await fetch(`${baseUrl}/_sim/bank/claims/${encodeURIComponent(claimId)}/pay`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(amount === undefined ? {} : { amount }),
        signal: AbortSignal.timeout(10_000),
      });
      if (res.ok) return;
      const body = (await res.json().catch(() => ({}))) as { error?: string };
      throw new TestBankPaymentError(body.error ?? `the bank answered ${res.status}`, res.status);
    },
  };
}
