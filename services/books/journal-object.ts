import { z } from 'zod';
import { ACCOUNT_ROLES } from '../../domain/journal';
import { VatPeriodSchema } from './vat-report-object';

const SOURCE_TYPES = [
  'invoice',
  'credit_note',
  'pos_sale',
  'pos_refund',
  'payment',
  'refund',
  'reversal',
  'dispute',
  'dispute_won',
  'acquirer_fee',
  'bank_cost',
  'payout',
] as const;

export const JournalLineSchema = z.object({
  account: z.enum(ACCOUNT_ROLES).describe('What the account is (its role in the chart of accounts)'),
  account_number: z.string().describe("The merchant's number for it"),
  account_name: z.string(),
  debit: z.number().int(),
  credit: z.number().int(),
});

export const JournalEntrySchema = z.object({
  object: z.literal('journal_entry'),
  date: z
    .string()
    .describe(
      "The day it is booked, YYYY-MM-DD: the source's own day, or the period's first day for a late one",
    ),
  source: z.object({
    type: z.enum(SOURCE_TYPES),
    id: z
      .string()
      .describe('The invoice, credit note, till sale or refund, payment, refund, dispute, cost or payout'),
  }),
  reference: z.string().nullable().describe("The invoice's, credit note's or till sale's number"),
  occurred: z.number().int().describe('When the source happened (unix seconds)'),
  lines: z.array(JournalLineSchema).describe('Balanced: the debits equal the credits'),
});

export const BooksPeriodSchema = VatPeriodSchema.extend({
  object: z.literal('books_period'),
  status: z.enum(['open', 'closed']),
  closed_at: z.number().int().nullable(),
  entry_count: z.number().int().nullable().describe('Closed periods: how many entries the close kept'),
  debit: z.number().int().nullable(),
  credit: z.number().int().nullable(),
});

export const JournalPageSchema = z.object({
  object: z.literal('list'),
  url: z.string(),
  period: BooksPeriodSchema,
  data: z.array(JournalEntrySchema),
  has_more: z.boolean(),
  next_page: z.string().nullable().describe('Pass as `page` for the entries after these'),
});

export const AccountSchema = z.object({
  object: z.literal('account'),
  role: z.enum(ACCOUNT_ROLES),
  number: z.string(),
  name: z.string(),
  default_number: z.string(),
  default_name: z.object({ is: z.string(), en: z.string() }),
});

export const ChartSchema = z.object({
  object: z.literal('chart_of_accounts'),
  livemode: z.boolean(),
  accounts: z.array(AccountSchema),
});

export type JournalEntryObject = z.output<typeof JournalEntrySchema>;
export type BooksPeriodObject = z.output<typeof BooksPeriodSchema>;
export type AccountObject = z.output<typeof AccountSchema>;
