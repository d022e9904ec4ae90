import type { CollectionCase, Collector, CollectorPayment } from '../../adapters/collectors/collector';

/**
 * The test environment's collector (decision 0247): keeps the cases handed to it (one per
 * reference: a repeated hand-off replaces nothing and opens no second case) and the payments its
 * debtors make, which it reports in order.
 */
export class SimulatedCollector implements Collector {
  readonly cases = new Map<string, { id: string; received: CollectionCase[] }>();
  private readonly received: CollectorPayment[] = [];

  handOff(c: CollectionCase): Promise<{ caseId: string }> {
    if (c.format !== 'skil.collection_case.v1')
      return Promise.reject(new Error(`unknown format ${String(c.format)}`));
    const existing = this.cases.get(c.reference);
    if (existing) {
      existing.received.push(c);
      return Promise.resolve({ caseId: existing.id });
    }
    const id = `case_${this.cases.size + 1}`;
    this.cases.set(c.reference, { id, received: [c] });
    return Promise.resolve({ caseId: id });
  }

  /** Test hook: the debtor pays the collector on `paidOn`. */
  receive(reference: string, amount: number, paidOn: string): CollectorPayment {
    if (!this.cases.has(reference)) throw new Error(`no case ${reference}`);
    const p = { id: `cpay_${this.received.length + 1}`, reference, amount, paid_on: paidOn };
    this.received.push(p);
    return p;
  }

  payments(after: string | null): Promise<CollectorPayment[]> {
    const i = after === null ? 0 : this.received.findIndex((p) => p.id === after) + 1;
    return Promise.resolve(this.received.slice(i));
  }
}
