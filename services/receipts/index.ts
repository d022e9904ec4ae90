/**
 * The one receipt service (decision 0130): a sale's receipt, a refund's, or an invoice, made from a
 * `ReceiptInput` and rendered as an 80 mm printable page or an email, with VAT per rate.
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
