import { InvalidRequestError } from '../../domain/errors';

export type SalePaymentInput =
  { method: 'cash'; amount: number; tendered?: number | undefined } | { method: 'card'; amount: number };

/** A split payment's parts must sum to the sale; cash tendered covers its part (decision 0129). */
export function checkPayments(total: number, payments: SalePaymentInput[]) {
  const sum = payments.reduce((s, p) => s + p.amount, 0);
  if (sum !== total)
    throw new InvalidRequestError(`The payments sum to ${sum} ISK but the sale is ${total} ISK`, {
      code: 'pos_payments_mismatch',
      param: 'payments',
    });
  if (payments.filter((p) => p.method === 'card').length > 1)
    throw new InvalidRequestError('A sale takes at most one card payment', {
      code: 'parameter_invalid',
      param: 'payments',
    });
  payments.forEach((p, i) => {
    if (p.method === 'cash' && p.tendered !== undefined && p.tendered < p.amount)
      throw new InvalidRequestError('Cash tendered is less than the cash part', {
        code: 'parameter_invalid',
        param: `payments.${i}.tendered`,
      });
  });
}

/** Change due: what the cash parts' tendered amounts exceed them by. */
export const changeDue = (payments: SalePaymentInput[]) =>
  payments.reduce((s, p) => s + (p.method === 'cash' && p.tendered ? p.tendered - p.amount : 0), 0);
