import { z } from 'zod';
import type { DisputeRow } from '../../db/disputes';
import { DISPUTE_REASONS, DISPUTE_STATUSES } from '../../domain/disputes';
import { unix } from '../../domain/unix-time';

/** The evidence fields a merchant may send (a subset of Stripe's dispute evidence), each text. */
export const EVIDENCE_FIELDS = [
  'product_description',
  'customer_name',
  'customer_email_address',
  'service_date',
  'shipping_tracking_number',
  'uncategorized_text',
] as const;

const evidenceText = z.string().max(5000);

/** The evidence as a request sends it: any of the fields, at least one. */
export const EvidenceInput = z
  .object(
    Object.fromEntries(EVIDENCE_FIELDS.map((f) => [f, evidenceText.optional()])) as Record<
      (typeof EVIDENCE_FIELDS)[number],
      z.ZodOptional<typeof evidenceText>
    >,
  )
  .strict()
  .refine((e) => Object.values(e).some((v) => v !== undefined && v.trim() !== ''), {
    message: 'Give at least one evidence field',
  });

export const DisputeSchema = z.object({
  id: z.string(),
  object: z.literal('dispute'),
  livemode: z.boolean(),
  payment_intent: z.string().describe('The card payment the cardholder’s bank disputes'),
  amount: z.number().describe('Disputed amount, withdrawn in the next settlement run (decision 0157)'),
  currency: z.literal('ISK'),
  reason: z.enum(DISPUTE_REASONS),
  status: z
    .enum(DISPUTE_STATUSES)
    .describe('needs_response → under_review (evidence submitted) → won or lost (decision 0156)'),
  evidence: z
    .object(
      Object.fromEntries(EVIDENCE_FIELDS.map((f) => [f, z.string().nullable()])) as Record<
        (typeof EVIDENCE_FIELDS)[number],
        z.ZodNullable<z.ZodString>
      >,
    )
    .describe('What the merchant submitted; every field null until then'),
  evidence_details: z.object({
    due_by: z.number().describe('Evidence is taken until then (Unix seconds)'),
    past_due: z.boolean(),
    has_evidence: z.boolean(),
    submission_count: z.number(),
  }),
  closed_at: z.number().nullable(),
  created_at: z.number(),
});

export type DisputeObject = z.output<typeof DisputeSchema>;

export function presentDispute(row: DisputeRow, now = new Date()): DisputeObject {
  const evidence = Object.fromEntries(
    EVIDENCE_FIELDS.map((f) => [f, row.evidence?.[f] ?? null]),
  ) as DisputeObject['evidence'];
  return {
    id: row.id,
    object: 'dispute',
    livemode: row.livemode,
    payment_intent: row.payment_intent_id,
    amount: row.amount,
    currency: 'ISK',
    reason: row.reason,
    status: row.status,
    evidence,
    evidence_details: {
      due_by: unix(row.evidence_due_by),
      past_due: row.evidence_due_by.getTime() < now.getTime(),
      has_evidence: row.evidence !== null,
      submission_count: row.submission_count,
    },
    closed_at: row.closed_at === null ? null : unix(row.closed_at),
    created_at: unix(row.created_at),
  };
}
