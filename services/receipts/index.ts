/**
 * The one receipt service (issue 19): a sale's receipt, a refund's, or an invoice (issue 22), made
 * from a `ReceiptInput` and rendered as an 80 mm printable page or an email, with VAT per rate.
 */
export { buildReceipt } from './receipt';
export type {
  Receipt,
  ReceiptInput,
  ReceiptLine,
  ReceiptLineInput,
  ReceiptPayment,
  VatLine,
} from './receipt';
export { renderReceiptEmail, renderReceiptPage } from './render';
