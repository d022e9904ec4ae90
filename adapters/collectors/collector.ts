/**
 * A licensed collector (innheimtuaðili) a krafa is handed to after its last interim step
 * (decision 0247). The case is exported in Skil's documented format, `skil.collection_case.v1`
 * (docs/decisions/0247-collector-hand-off.md): the parties, the krafa, what is owed and every
 * collection step taken, so the collector starts from the same figures the payer was last shown.
 * The collector reports the payments it receives; each closes its krafa in Skil.
 */

export interface CollectionCaseStep {
  step: number;
  kind: string;
  taken_on: string;
  cost: number;
  status: 'taken' | 'withdrawn';
  total: number;
}

export interface CollectionCase {
  format: 'skil.collection_case.v1';
  /** Skil's krafa id: the case's identity at the collector (a repeated hand-off is the same case). */
  reference: string;
  claimant: { kennitala: string; name: string; address: string | null };
  debtor: { kennitala: string; name: string | null; email: string | null; address: string | null };
  claim: {
    claim_number: number;
    bank_claim_id: string;
    description: string | null;
    issued_on: string | null;
    due_date: string;
    final_due_date: string;
    currency: 'ISK';
  };
  /** What is owed on `as_of`, whole ISK: the same breakdown the payer was last sent. */
  amount_owed: { as_of: string; principal: number; interest: number; costs: number; total: number };
  history: CollectionCaseStep[];
}

/** A payment the collector received on a case. */
export interface CollectorPayment {
  /** The collector's own id of the payment: unique. */
  id: string;
  reference: string;
  amount: number;
  /** The day the debtor paid, `YYYY-MM-DD`. */
  paid_on: string;
}

export interface Collector {
  /** Hands a case over; the same reference again is the same case (idempotent at the collector). */
  handOff(c: CollectionCase): Promise<{ caseId: string }>;
  /** Payments received since `after` (the id of the last one seen; null: from the start). */
  payments(after: string | null): Promise<CollectorPayment[]>;
}

/** The collector's HTTP API as the simulated collector speaks it (decision 0247). */
export function createHttpCollector(opts: { baseUrl: string; token: string }): Collector {
  const call = async (path: string, init: RequestInit = {}): Promise<unknown> => {
    const res = await fetch(new URL(path, opts.baseUrl), {
      ...init,
      headers: { authorization: `Bearer ${opts.token}`, 'content-type': 'application/json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!res.ok) throw new Error(`collector answered ${res.status} to ${path}`);
    return res.json();
  };
  return {
    async handOff(c) {
      const body = (await call(`/v1/cases/${encodeURIComponent(c.reference)}`, {
        method: 'PUT',
        body: JSON.stringify(c),
      })) as { id: string };
      return { caseId: body.id };
    },
    async payments(after) {
      const q = after === null ? '' : `?after=${encodeURIComponent(after)}`;
      return ((await call(`/v1/payments${q}`)) as { data: CollectorPayment[] }).data;
    },
  };
}
