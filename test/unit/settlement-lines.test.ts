import { cardFee, claimFee } from '../../domain/fees';
import {
  assertBalanced,
  autoApproves,
  feeKindOf,
  ledgerDifference,
  negativeLine,
  opensRun,
  paymentLine,
  runTotals,
} from '../../domain/settlement-lines';
import { accountDigits, payoutIdempotencyKey } from '../../domain/settlement-ids';
import { settlementDayWorkflowId, settlementRunWorkflowId } from '../../workflows/contract';

test('payment lines: gross captured, the fee stored at capture, net the difference', () => {
  expect(paymentLine(10_000, cardFee(10_000, 'online'))).toEqual({ gross: 10_000, fee: 150, net: 9_850 });
  expect(paymentLine(5_000, cardFee(5_000, 'pos'))).toEqual({ gross: 5_000, fee: 40, net: 4_960 });
  expect(paymentLine(3_333, cardFee(3_333, 'online'))).toEqual({ gross: 3_333, fee: 50, net: 3_283 }); // 49.995 half up
  expect(paymentLine(1_000, claimFee(1_000))).toEqual({ gross: 1_000, fee: 25, net: 975 }); // minimum
  expect(paymentLine(50_000, claimFee(50_000))).toEqual({ gross: 50_000, fee: 250, net: 49_750 }); // maximum
  expect(paymentLine(10_000, claimFee(10_000))).toEqual({ gross: 10_000, fee: 80, net: 9_920 });
  expect(() => paymentLine(0, 0)).toThrow(RangeError);
  expect(() => paymentLine(100, 101)).toThrow(RangeError);
  expect(() => paymentLine(100.5, 1)).toThrow(RangeError);
});

test('refunds and reversals: negative lines with no fee returned', () => {
  expect(negativeLine(2_500)).toEqual({ gross: -2_500, fee: 0, net: -2_500 });
  expect(negativeLine(-10_000)).toEqual({ gross: -10_000, fee: 0, net: -10_000 });
  expect(() => negativeLine(0)).toThrow(RangeError);
});

test('fee kinds: a claim-paid intent carries the claim fee whatever its channel', () => {
  expect(feeKindOf({ channel: 'online', paidByClaim: false })).toBe('card_online');
  expect(feeKindOf({ channel: 'pos', paidByClaim: false })).toBe('card_pos');
  expect(feeKindOf({ channel: 'online', paidByClaim: true })).toBe('claim');
});

test('run totals are exact and balance; a run opens only for a positive net', () => {
  const lines = [
    paymentLine(10_000, 150),
    paymentLine(5_000, 40),
    paymentLine(3_333, 50),
    negativeLine(2_500),
    paymentLine(1_000, 25),
    paymentLine(50_000, 250),
    paymentLine(10_000, 80),
    negativeLine(10_000),
  ];
  const totals = runTotals(lines);
  expect(totals).toEqual({ gross: 66_833, fee: 595, net: 66_238, lineCount: 8 });
  expect(opensRun(totals)).toBe(true);
  // A refund of the whole payment leaves the fee: net −15, no run.
  const refunded = runTotals([paymentLine(1_000, 15), negativeLine(1_000)]);
  expect(refunded).toEqual({ gross: 0, fee: 15, net: -15, lineCount: 2 });
  expect(opensRun(refunded)).toBe(false);
  expect(opensRun(runTotals([]))).toBe(false);
  expect(() => runTotals([{ gross: 100, fee: 1, net: 98 }])).toThrow('gross 100 − fee 1 ≠ net 98');
  expect(() => assertBalanced({ gross: 1.5, fee: 0, net: 1.5 })).toThrow(RangeError);
});

test('many lines sum exactly (no floating point drift)', () => {
  const lines = Array.from({ length: 10_000 }, (_, i) =>
    paymentLine(1_000 + i, cardFee(1_000 + i, 'online')),
  );
  const totals = runTotals(lines);
  expect(totals.gross).toBe(lines.reduce((n, l) => n + l.gross, 0));
  expect(totals.gross - totals.fee).toBe(totals.net);
});

test('auto-approve policy: at or under the limit, off at 0', () => {
  expect(autoApproves(5_000, 0)).toBe(false);
  expect(autoApproves(5_000, 5_000)).toBe(true);
  expect(autoApproves(5_001, 5_000)).toBe(false);
  expect(autoApproves(0, 5_000)).toBe(false);
});

test('ledger difference: captured − refunds − reversals = settled gross + unsettled', () => {
  expect(
    ledgerDifference({
      captured: 79_333,
      refunded: 2_500,
      reversed: 10_000,
      settledGross: 66_833,
      unsettled: 0,
    }),
  ).toBe(0);
  expect(
    ledgerDifference({ captured: 7_000, refunded: 0, reversed: 0, settledGross: 0, unsettled: 7_000 }),
  ).toBe(0);
  expect(
    ledgerDifference({ captured: 7_000, refunded: 0, reversed: 0, settledGross: 7_000, unsettled: 7_000 }),
  ).toBe(-7_000);
});

test('business identities', () => {
  expect(settlementRunWorkflowId(false, 'acct_1', '2026-11-23')).toBe('settlement/test/acct_1/2026-11-23');
  expect(settlementRunWorkflowId(true, 'acct_1', '2026-11-23')).toBe('settlement/live/acct_1/2026-11-23');
  expect(settlementDayWorkflowId(false, 'skil', '2026-11-23')).toBe('settlement-day/test/skil/2026-11-23');
  expect(payoutIdempotencyKey('stl_x')).toBe('stl_x:payout');
  expect(accountDigits('0101-26-123456')).toBe('010126123456');
  expect(() => accountDigits('0101-26-12345')).toThrow(RangeError);
});
