import { randomUUID } from 'node:crypto';
import { claimAmountDue, type AmountDue } from '../../domain/claim-amount-due';
import { constantRateTable, type DefaultInterestRateTable } from '../../domain/default-interest-rates';
import { nextBankingDay } from '../../domain/banking-days';
import {
  claimIdOf,
  type ClaimDetails,
  type ClaimKey,
  type ClaimTransaction,
  type CreateClaimDetails,
  type MergeClaimDetails,
} from '../../adapters/banks/claims-api';
import { claimTermsOf } from '../../adapters/banks/claim-terms';
import { ClaimRuleError, isDate, mergePatch, plusYears, validateClaim } from './claims-rules';
import { payerAccountOf } from './payer-accounts';

export { ClaimRuleError };

/**
 * The simulated bank's claims pool (Kröfupotturinn): claims keyed by claim key, their payments,
 * and the rules a bank enforces on create, alter, cancel and pay. Pure state; HTTP lives in
 * claims-service.ts. Dates are Iceland calendar dates from the injected clock.
 */

export interface StoredClaim {
  claimId: string;
  /** As created/altered, without computed fields. */
  claim: CreateClaimDetails & { expirationDate: string };
  claimStatus: 'Unpaid' | 'Paid' | 'Cancelled';
  closingDate?: string;
  /** Principal paid by partial payments so far. */
  principalPaid: number;
  /** Set by a partial payment: costs are settled and interest paid up to this date. */
  settledThrough?: string;
  createdAt: string;
  lastChangeAt: string;
}

export interface LedgerSnapshot {
  claims: StoredClaim[];
  transactions: ClaimTransaction[];
}

export interface LedgerOptions {
  /** Current time (tests and test clocks move it). */
  now?: () => Date;
  /**
   * The statutory rates when a claim names no default-interest percentage; omitted: 15.25 % for
   * all time. The bank computes a percentage the claim names as named (decision 0209).
   */
  statutoryRates?: DefaultInterestRateTable;
  /** The paying bank's branch reported in transactions. */
  transactionBank?: string;
}

/** The simulated bank's one statutory rate, as before the rate table existed. */
const SIMULATED_STATUTORY_RATES = constantRateTable(15.25);

export class ClaimsLedger {
  private readonly claims = new Map<string, StoredClaim>();
  private readonly transactions: ClaimTransaction[] = [];
  private readonly now: () => Date;
  /** Called after every change (persistence). */
  onChange: () => void = () => undefined;

  constructor(private readonly opts: LedgerOptions = {}) {
    this.now = opts.now ?? (() => new Date());
  }

  today(): string {
    return this.now().toISOString().slice(0, 10);
  }

  load(snapshot: LedgerSnapshot): void {
    for (const c of snapshot.claims) this.claims.set(c.claimId, c);
    this.transactions.push(...snapshot.transactions);
  }

  snapshot(): LedgerSnapshot {
    return { claims: [...this.claims.values()], transactions: this.transactions };
  }

  /** Creates a claim; CLAIM_EXISTS when its key is taken (even by a cancelled claim). */
  create(input: CreateClaimDetails): { claimKey: ClaimKey; claimId: string; directPaymentClaim: boolean } {
    const claim = {
      ...input,
      expirationDate:
        input.expirationDate ?? (isDate(input.claimKey?.dueDate) ? plusYears(input.claimKey.dueDate, 4) : ''),
    };
    validateClaim(claim);
    const claimId = claimIdOf(claim.claimKey);
    if (this.claims.has(claimId)) throw new ClaimRuleError('CLAIM_EXISTS', `claim ${claimId} exists`);
    const at = this.now().toISOString();
    this.claims.set(claimId, {
      claimId,
      claim,
      claimStatus: 'Unpaid',
      principalPaid: 0,
      createdAt: at,
      lastChangeAt: at,
    });
    this.onChange();
    return { claimKey: claim.claimKey, claimId, directPaymentClaim: false };
  }

  private get(claimId: string): StoredClaim {
    const c = this.claims.get(claimId);
    if (!c) throw new ClaimRuleError('CLAIM_NOT_FOUND', `no claim ${claimId}`);
    return c;
  }

  find(claimId: string): StoredClaim | undefined {
    return this.claims.get(claimId);
  }

  /** Merge-patches a claim: cancel, recreate (Cancelled → Unpaid), or change an unpaid claim. */
  alter(
    claimId: string,
    patch: MergeClaimDetails & { claimKey?: unknown },
  ): { claimKey: ClaimKey; claimId: string } {
    const stored = this.get(claimId);
    const { claimStatus, collectionState, claimKey: _key, ...changes } = patch;
    if (collectionState !== undefined && collectionState !== 'PrimaryCollection')
      throw new ClaimRuleError('CLAIM_NOT_IN_SECONDARY_STATE', 'secondary collection is not simulated');
    const at = this.now().toISOString();
    if (claimStatus === 'Cancelled') {
      if (stored.claimStatus === 'Paid')
        throw new ClaimRuleError('CLAIM_IS_PAID', 'a paid claim cannot be cancelled');
      if (stored.claimStatus === 'Cancelled')
        throw new ClaimRuleError('CLAIM_IS_CANCELLED', 'already cancelled');
      Object.assign(stored, { claimStatus: 'Cancelled', closingDate: this.today(), lastChangeAt: at });
      this.onChange();
      return { claimKey: stored.claim.claimKey, claimId };
    }
    if (stored.claimStatus === 'Paid')
      throw new ClaimRuleError('CLAIM_IS_PAID', 'a paid claim cannot change');
    if (stored.claimStatus === 'Cancelled' && claimStatus !== 'Unpaid')
      throw new ClaimRuleError('CLAIM_IS_CANCELLED', 'recreate the claim (claimStatus Unpaid) first');
    if (Object.keys(changes).length > 0 && stored.principalPaid > 0)
      throw new ClaimRuleError('CLAIM_OTHERS', 'a claim with payments cannot be altered');
    const next = mergePatch(stored.claim, changes) as StoredClaim['claim'];
    next.claimKey = stored.claim.claimKey;
    validateClaim(next);
    stored.claim = next;
    if (claimStatus === 'Unpaid') {
      stored.claimStatus = 'Unpaid';
      delete stored.closingDate;
    }
    stored.lastChangeAt = at;
    this.onChange();
    return { claimKey: stored.claim.claimKey, claimId };
  }

  /** What the payer owes today (or on `date`) under the claim's terms and its payments so far. */
  amountDue(stored: StoredClaim, date = this.today()): AmountDue {
    const terms = claimTermsOf(stored.claim);
    terms.principal -= stored.principalPaid;
    if (stored.settledThrough) {
      Object.assign(terms, { noticeFee: 0, otherCosts: 0, otherDefaultCosts: 0, defaultCharge: undefined });
      terms.interestPaidThrough = stored.settledThrough;
    }
    return claimAmountDue(terms, date, {
      statutoryRates: this.opts.statutoryRates ?? SIMULATED_STATUTORY_RATES,
    });
  }

  /** The claim as `claimDetails`, with amounts due today. */
  details(stored: StoredClaim): ClaimDetails {
    const due = stored.claimStatus === 'Unpaid' ? this.amountDue(stored) : null;
    return {
      ...stored.claim,
      claimStatus: stored.claimStatus,
      collectionState: 'PrimaryCollection',
      ...(stored.closingDate && { closingDate: stored.closingDate }),
      ...(due && {
        noticeChargeAmountDue: due.noticeFee,
        otherCostsAmountDue: due.otherCosts,
        otherDefaultCostsAmountDue: due.otherDefaultCosts,
        defaultChargeAmountDue: due.defaultCharge,
        defaultInterestAmountDue: due.defaultInterest,
        discountAmountOffered: due.discount,
        totalAmountDue: due.total,
      }),
      isPartiallyPaid: stored.principalPaid > 0,
      directPaymentClaim: false,
      createdDate: stored.createdAt,
      lastChangeDate: stored.lastChangeAt,
    };
  }

  /** The account a payer pays from at this bank (and a refund of a krafa goes back to). */
  payerAccount(payorId: string): string {
    return payerAccountOf(payorId, this.opts.transactionBank ?? '0001');
  }

  /** Unpaid claims of a payer, oldest due date first. */
  unpaidFor(payorId: string): StoredClaim[] {
    return [...this.claims.values()]
      .filter((c) => c.claim.payorId === payorId && c.claimStatus === 'Unpaid')
      .sort((a, b) => a.claim.claimKey.dueDate.localeCompare(b.claim.claimKey.dueDate));
  }

  /**
   * The payer pays `amount` (default: all that is due today). Less than the total is a partial
   * payment: only where the claim allows it, and it must cover every cost due so that the rest
   * reduces the principal (decision 0075).
   */
  pay(claimId: string, opts: { amount?: number; batchId?: string } = {}): ClaimTransaction {
    const stored = this.get(claimId);
    if (stored.claimStatus === 'Paid') throw new ClaimRuleError('CLAIM_IS_PAID', 'already paid');
    if (stored.claimStatus === 'Cancelled')
      throw new ClaimRuleError('CLAIM_IS_CANCELLED', 'the claim is cancelled');
    const today = this.today();
    const due = this.amountDue(stored, today);
    const amount = opts.amount ?? due.total;
    const costs = due.total - due.principal;
    if (!Number.isSafeInteger(amount) || amount < 1 || amount > due.total)
      throw new ClaimRuleError('CLAIM_OTHERS', `amount must be a whole ISK amount from 1 to ${due.total}`);
    const complete = amount === due.total;
    if (!complete && !stored.claim.isPartialPaymentAllowed)
      throw new ClaimRuleError('CLAIM_OTHERS', 'this claim does not allow partial payment');
    if (!complete && amount <= costs)
      throw new ClaimRuleError('CLAIM_OTHERS', `a partial payment must exceed the costs due (${costs})`);
    const principalPaid = complete ? due.principal : amount - costs;
    const tx: ClaimTransaction = {
      claimKey: stored.claim.claimKey,
      payorId: stored.claim.payorId,
      amount: principalPaid,
      finalDueDate: stored.claim.finalDueDate,
      templateCode: stored.claim.templateCode,
      ...(stored.claim.reference && { reference: stored.claim.reference }),
      ...(stored.claim.billNumber && { billNumber: stored.claim.billNumber }),
      ...(stored.claim.customerNumber && { customerNumber: stored.claim.customerNumber }),
      transactionBank: this.opts.transactionBank ?? '0001',
      transactionTimestamp: this.now().toISOString(),
      bookingDate: nextBankingDay(today),
      valueDate: today,
      paymentType: complete ? 'Complete' : 'Partial',
      depositedAmount: amount,
      totalAmountPaid: amount,
      capitalGainsTax: 0,
      noticeChargeAmountPaid: due.noticeFee,
      defaultChargeAmountPaid: due.defaultCharge,
      otherCostsAmountPaid: due.otherCosts,
      otherDefaultCostsAmountPaid: due.otherDefaultCosts,
      defaultInterestAmountPaid: due.defaultInterest,
      discountAmountGiven: complete ? due.discount : 0,
      currency: 'ISK',
      transactionBatchId: opts.batchId ?? randomUUID(),
    };
    this.transactions.push(tx);
    stored.principalPaid += principalPaid;
    stored.lastChangeAt = tx.transactionTimestamp!;
    if (complete) Object.assign(stored, { claimStatus: 'Paid', closingDate: today });
    else stored.settledThrough = today;
    this.onChange();
    return tx;
  }

  /**
   * Test hook: the bank (or the payer) cancels an unpaid claim. It reads `claimStatus: Cancelled`
   * with a closing date, as a claimant's own cancellation does.
   */
  cancelByBank(claimId: string): void {
    const stored = this.get(claimId);
    if (stored.claimStatus !== 'Unpaid')
      throw new ClaimRuleError(
        stored.claimStatus === 'Paid' ? 'CLAIM_IS_PAID' : 'CLAIM_IS_CANCELLED',
        `the claim is ${stored.claimStatus}`,
      );
    Object.assign(stored, {
      claimStatus: 'Cancelled',
      closingDate: this.today(),
      lastChangeAt: this.now().toISOString(),
    });
    this.onChange();
  }

  /**
   * Test hook: the bank reverses the claim's latest payment. The feed carries the reversal as a
   * transaction of `paymentType: Refund` for the amounts reversed; the claim is unpaid again.
   */
  reverse(claimId: string, opts: { batchId?: string } = {}): ClaimTransaction {
    const stored = this.get(claimId);
    const mine = this.transactionsOf(claimId);
    const last = mine[mine.length - 1];
    if (!last || last.paymentType === 'Refund')
      throw new ClaimRuleError('CLAIM_OTHERS', 'the claim has no payment to reverse');
    const today = this.today();
    const tx: ClaimTransaction = {
      ...last,
      transactionTimestamp: this.now().toISOString(),
      bookingDate: nextBankingDay(today),
      valueDate: today,
      paymentType: 'Refund',
      transactionBatchId: opts.batchId ?? randomUUID(),
    };
    this.transactions.push(tx);
    stored.principalPaid = Math.max(0, stored.principalPaid - (last.amount ?? 0));
    stored.lastChangeAt = tx.transactionTimestamp!;
    if (stored.claimStatus === 'Paid') {
      stored.claimStatus = 'Unpaid';
      delete stored.closingDate;
    }
    this.onChange();
    return tx;
  }

  transactionsOf(claimId: string): ClaimTransaction[] {
    this.get(claimId);
    return this.transactions.filter((t) => t.claimKey && claimIdOf(t.claimKey) === claimId);
  }

  /** Payments and reversals booked between two dates (inclusive), optionally of one claimant or template. */
  listTransactions(q: {
    dateFrom: string;
    dateTo: string;
    claimantId?: string;
    templateCode?: string;
  }): ClaimTransaction[] {
    return this.transactions.filter(
      (t) =>
        t.bookingDate! >= q.dateFrom &&
        t.bookingDate! <= q.dateTo &&
        (!q.claimantId || t.claimKey?.claimantId === q.claimantId) &&
        (!q.templateCode || t.templateCode === q.templateCode),
    );
  }
}
