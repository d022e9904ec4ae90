import { randomUUID } from 'node:crypto';
import {
  claimIdOf,
  type BatchStatus,
  type ClaimKey,
  type ClaimStatusError,
  type ClaimStatusSuccess,
  type CreateClaimDetails,
} from '../../adapters/banks/claims-api';
import { ClaimRuleError, type ClaimsLedger } from './claims-ledger';

/**
 * `POST /v1/batches` in the simulated bank (decision 0078): a batch is accepted with everything
 * pending and processed in the background, a chunk per event-loop turn, in order; each item
 * succeeds or fails on its own with a claim result code.
 */

type Status = Required<Pick<BatchStatus, 'batchId' | 'success' | 'failed' | 'pending' | 'actionType'>> & {
  actions: { successes: ClaimStatusSuccess[]; errors: ClaimStatusError[] };
};

interface Batch {
  status: Status;
  items: unknown[];
  next: number;
}

/** A value shaped like a claim key (so it can be echoed in a result without breaking the schema). */
export function isClaimKeyShape(k: unknown): k is ClaimKey {
  const key = k as Partial<ClaimKey> | null;
  return (
    !!key &&
    typeof key === 'object' &&
    /^\d{10}$/.test(String(key.claimantId)) &&
    /^\d{12}$/.test(String(key.account)) &&
    /^\d{4}-\d{2}-\d{2}$/.test(String(key.dueDate))
  );
}

export class ClaimBatches {
  private readonly batches = new Map<string, Batch>();
  private readonly queue: Batch[] = [];
  private draining = false;

  constructor(
    private readonly ledger: ClaimsLedger,
    private readonly chunk = 500,
  ) {}

  /** Queues a batch; returns its status as accepted (a copy: all pending). */
  submit(actionType: 'create' | 'alter', items: unknown[]): BatchStatus {
    const batchId = randomUUID();
    const batch: Batch = {
      status: {
        batchId,
        success: 0,
        failed: 0,
        pending: items.length,
        actionType,
        actions: { successes: [], errors: [] },
      },
      items,
      next: 0,
    };
    this.batches.set(batchId, batch);
    this.queue.push(batch);
    this.drain();
    return structuredClone(batch.status);
  }

  status(batchId: string): BatchStatus | undefined {
    return this.batches.get(batchId)?.status;
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    const step = () => {
      const batch = this.queue[0];
      if (!batch) {
        this.draining = false;
        return;
      }
      const end = Math.min(batch.items.length, batch.next + this.chunk);
      for (; batch.next < end; batch.next++) this.process(batch, batch.items[batch.next]);
      if (batch.next >= batch.items.length) this.queue.shift();
      setImmediate(step);
    };
    setImmediate(step);
  }

  private process(batch: Batch, item: unknown): void {
    const key = (item as { claimKey?: unknown } | null)?.claimKey;
    const s = batch.status;
    s.pending--;
    try {
      if (typeof item !== 'object' || item === null)
        throw new ClaimRuleError('CLAIM_OTHERS', 'not an object');
      if (s.actionType === 'create') {
        s.actions.successes.push(this.ledger.create(item as CreateClaimDetails));
      } else {
        if (!isClaimKeyShape(key)) throw new ClaimRuleError('CLAIM_OTHERS', 'claimKey is required');
        s.actions.successes.push({ ...this.ledger.alter(claimIdOf(key), item), directPaymentClaim: false });
      }
      s.success++;
    } catch (err) {
      // Background work must never throw: anything unexpected is this item's CLAIM_OTHERS.
      s.failed++;
      s.actions.errors.push({
        ...(isClaimKeyShape(key) && { claimKey: key, claimId: claimIdOf(key) }),
        resultCode: err instanceof ClaimRuleError ? err.resultCode : 'CLAIM_OTHERS',
        resultMessage: err instanceof ClaimRuleError ? err.message : 'the claim could not be processed',
      });
    }
  }
}
