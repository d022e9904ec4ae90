/**
 * Settlement line semantics (decision 0090): what each captured payment, refund and claim reversal
 * contributes to a merchant's settlement, and the totals of a run. The database gathers lines with
 * set-based SQL that follows these rules; tests hold the two against each other.
 */

/**
 * What a line settles: a capture, a refund of one, a claim payment the payer's bank reversed, or a
 * cost added on top of the service fee (spec §1, decision 0113): the acquirer's fee on a capture or
 * the bank's charge for a claim payment; a card dispute's amount withdrawn, or paid back when the
 * merchant won it (decision 0157).
 */
export type SettlementLineKind =
  'payment' | 'refund' | 'reversal' | 'acquirer_fee' | 'bank_cost' | 'dispute' | 'dispute_reversal';

/** The line kinds that are costs added on top; their totals are a run's `fee_details`. */
export const COST_LINE_KINDS = ['acquirer_fee', 'bank_cost'] as const;
export type CostLineKind = (typeof COST_LINE_KINDS)[number];

/** Which fee schedule the payment behind a line was charged under (spec §1). */
export type SettlementFeeKind = 'card_online' | 'card_pos' | 'claim';

/** Money of one line or one run, whole ISK. */
export interface SettlementAmounts {
  gross: number;
  fee: number;
  net: number;
}

export interface SettlementTotals extends SettlementAmounts {
  lineCount: number;
}

function wholeKronur(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be a whole ISK amount, got ${value}`);
}

/** Throws unless gross − fee = net, the invariant of every line and every run. */
export function assertBalanced(a: SettlementAmounts): void {
  wholeKronur('gross', a.gross);
  wholeKronur('fee', a.fee);
  wholeKronur('net', a.net);
  if (a.gross - a.fee !== a.net) throw new RangeError(`gross ${a.gross} − fee ${a.fee} ≠ net ${a.net}`);
}

/** The fee kind of a payment: a claim-paid intent carries the claim fee, a card one its channel's. */
export function feeKindOf(payment: { channel: 'online' | 'pos'; paidByClaim: boolean }): SettlementFeeKind {
  if (payment.paidByClaim) return 'claim';
  return payment.channel === 'pos' ? 'card_pos' : 'card_online';
}

/** A captured payment: gross is what was captured, the fee is the one stored at capture. */
export function paymentLine(amountCaptured: number, feeAmount: number): SettlementAmounts {
  if (amountCaptured <= 0 || feeAmount < 0 || feeAmount > amountCaptured)
    throw new RangeError(
      `a payment line needs 0 ≤ fee ≤ captured > 0, got ${feeAmount} of ${amountCaptured}`,
    );
  const line = { gross: amountCaptured, fee: feeAmount, net: amountCaptured - feeAmount };
  assertBalanced(line);
  return line;
}

/**
 * A refund or a claim reversal: a negative line with no fee returned (gross = net = −amount), as
 * Stripe keeps its fee on refunds. The amount may be given with either sign.
 */
export function negativeLine(amount: number): SettlementAmounts {
  wholeKronur('amount', amount);
  if (amount === 0) throw new RangeError('a refund or reversal line needs a non-zero amount');
  const gross = -Math.abs(amount);
  return { gross, fee: 0, net: gross };
}

/**
 * A cost added on top (an acquirer fee, a bank cost): a fee to the merchant, not money received,
 * so gross 0, fee = the cost, net = −the cost (decision 0113).
 */
export function costLine(amount: number): SettlementAmounts {
  wholeKronur('amount', amount);
  if (amount <= 0) throw new RangeError(`a cost line needs a cost > 0, got ${amount}`);
  return { gross: 0, fee: amount, net: -amount };
}

/**
 * How a run's fee divides: the service fee (spec §1's pricing) and each cost added on top, in
 * this order, each whole ISK; they add up to the run's fee.
 */
export function feeDetails(run: { fee: number; acquirerFee: number; bankCost: number }): {
  type: 'service_fee' | CostLineKind;
  amount: number;
}[] {
  return [
    { type: 'service_fee', amount: run.fee - run.acquirerFee - run.bankCost },
    { type: 'acquirer_fee', amount: run.acquirerFee },
    { type: 'bank_cost', amount: run.bankCost },
  ];
}

/** The exact totals of a set of lines; each line must balance. */
export function runTotals(lines: readonly SettlementAmounts[]): SettlementTotals {
  const totals = { gross: 0, fee: 0, net: 0, lineCount: lines.length };
  for (const line of lines) {
    assertBalanced(line);
    totals.gross += line.gross;
    totals.fee += line.fee;
    totals.net += line.net;
  }
  assertBalanced(totals);
  return totals;
}

/** A run is opened only for money to pay out; a zero or negative balance waits for a later day. */
export function opensRun(totals: Pick<SettlementTotals, 'net' | 'lineCount'>): boolean {
  return totals.lineCount > 0 && totals.net > 0;
}

/**
 * The auto-approve policy (SETTLEMENT_AUTO_APPROVE_MAX_NET): runs whose net is at or under the limit
 * are approved without an operator; 0 turns the policy off.
 */
export function autoApproves(net: number, maxNet: number): boolean {
  return maxNet > 0 && net > 0 && net <= maxNet;
}

/**
 * The ledger invariant (decisions 0093, 0107), for one merchant and environment: what was captured
 * (captures − refunds − reversals) equals what settled (Σ line gross) plus what still waits. Returns
 * the difference, which must be 0.
 */
export function ledgerDifference(l: {
  captured: number;
  refunded: number;
  reversed: number;
  settledGross: number;
  unsettled: number;
}): number {
  return l.captured - l.refunded - Math.abs(l.reversed) - (l.settledGross + l.unsettled);
}
