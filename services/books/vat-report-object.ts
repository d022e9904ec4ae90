import { z } from 'zod';
import type { VatFigures } from '../../domain/vat-report';
import type { VatPeriod } from '../../domain/vat-period';
import type { VatDocumentRow } from '../../db/vat-documents';
import { unix } from '../../domain/unix-time';

const Figures = z.object({
  A: z.number().int().describe('Box A: sales at 24 % without VAT (ISK)'),
  B: z.number().int().describe('Box B: sales at 11 % without VAT'),
  C: z.number().int().describe('Box C: zero-rated sales (art. 12 of the VAT Act 50/1988)'),
  D: z.number().int().describe('Box D: output VAT (24 % and 11 % together)'),
  vat_24: z.number().int().describe('Output VAT at 24 %'),
  vat_11: z.number().int().describe('Output VAT at 11 %'),
  out_of_scope: z
    .number()
    .int()
    .describe('Exempt sales and sales outside the scope of VAT: no box of the return'),
});

export const VatPeriodSchema = z.object({
  id: z.string().describe("'YYYY-MM' (a two-month period, by its first month) or 'YYYY' (a year)"),
  kind: z.enum(['two_month', 'yearly']),
  start: z.string().describe('First day, YYYY-MM-DD'),
  end: z.string().describe('Last day, YYYY-MM-DD'),
  due_date: z
    .string()
    .describe("The return's due date: the 5th of the second month after, moved to a working day"),
});

const DOCUMENT_TYPES = ['invoice', 'credit_note', 'pos_sale', 'pos_refund'] as const;

export const VatReportSchema = z.object({
  object: z.literal('vat_report'),
  livemode: z.boolean(),
  period: VatPeriodSchema,
  vat_period: z.enum(['two_month', 'yearly']).describe("The merchant's filing period setting"),
  vat_number: z.string().nullable(),
  currency: z.literal('isk'),
  boxes: Figures,
  /** Credit notes and till refunds are in `boxes` already; shown here as well because the return asks. */
  credits: Figures.describe('What credit notes and till refunds issued in the period took off the boxes'),
  documents: z
    .object({
      invoice: z.number().int(),
      credit_note: z.number().int(),
      pos_sale: z.number().int(),
      pos_refund: z.number().int(),
    })
    .describe('How many documents of each type'),
});

export const VatReportDocumentSchema = z.object({
  object: z.literal('vat_report_document'),
  type: z.enum(DOCUMENT_TYPES),
  id: z.string(),
  number: z.string().nullable().describe("The invoice's or credit note's number, the till sale's number"),
  created: z.number().int().describe('When it was issued (unix seconds)'),
  date: z.string().describe('The Iceland date it counts on, YYYY-MM-DD'),
  parent: z.string().nullable().describe('The invoice a credit note credits, the till sale a refund refunds'),
  figures: Figures,
});

export type VatReportObject = z.output<typeof VatReportSchema>;
export type VatReportDocumentObject = z.output<typeof VatReportDocumentSchema>;

export function presentVatPeriod(p: VatPeriod) {
  return { id: p.id, kind: p.kind, start: p.start, end: p.end, due_date: p.due_date };
}

export function presentVatDocument(row: VatDocumentRow, figures: VatFigures): VatReportDocumentObject {
  return {
    object: 'vat_report_document',
    type: row.kind,
    id: row.id,
    number: row.number,
    created: unix(row.at),
    date: row.at.toISOString().slice(0, 10),
    parent: row.parent,
    figures,
  };
}
