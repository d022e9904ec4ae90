import { z } from 'zod';
import type { Receipt } from '../receipts';
import { VatLineSchema } from './vat-lines';

export const PosReceiptSchema = z.object({
  object: z.literal('pos.receipt'),
  sale: z.string(),
  number: z.string(),
  total: z.number().int(),
  vat: z.array(VatLineSchema),
  subject: z.string(),
  text: z.string(),
  html: z.string().describe('The printable 80 mm page'),
});
/** A sale's receipt as built by the one receipt service, with its email rendering. */
export const presentReceipt = (
  saleId: string,
  r: Receipt,
  mail: { subject: string; text: string; html: string },
) => ({
  object: 'pos.receipt' as const,
  sale: saleId,
  number: r.number,
  total: r.total,
  vat: r.vat,
  subject: mail.subject,
  text: mail.text,
  html: mail.html,
});
