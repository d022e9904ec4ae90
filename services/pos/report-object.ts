import { tillVatCategory, type VatCategory } from '../../domain/vat-category';
import { z } from 'zod';
import type { PosZReportRow } from '../../db/pos-reports';
import type { PosReportTotals } from '../../domain/pos';
import { unix } from '../../domain/unix-time';
import { VatLineSchema } from './vat-lines';

const TotalsSchema = z.object({
  sales_count: z.number().int(),
  gross_sales: z.number().int(),
  discounts: z.number().int(),
  refunds: z.object({
    count: z.number().int(),
    amount: z.number().int(),
    cash: z.number().int(),
    card: z.number().int(),
  }),
  net_sales: z.number().int(),
  payments: z.object({ cash: z.number().int(), card: z.number().int() }),
  vat: z.array(VatLineSchema),
  staff: z.array(
    z.object({
      staff: z.string(),
      name: z.string(),
      sales_count: z.number().int(),
      sales: z.number().int(),
      refunds: z.number().int(),
    }),
  ),
  drawer: z.object({
    no_sale_openings: z.number().int(),
    paid_in: z.number().int(),
    paid_out: z.number().int(),
  }),
  cash: z.object({
    opening_float: z.number().int(),
    expected: z.number().int(),
    counted: z.number().int().nullable(),
    difference: z.number().int().nullable(),
  }),
});

export const PosXReportSchema = TotalsSchema.extend({
  object: z.literal('pos.x_report'),
  register: z.string(),
  period_start: z.number().nullable(),
  generated_at: z.number(),
  grand_total: z.number().int().describe('Net sales since the register began, never reset'),
});

/** Running figures since the last Z-report; the grand total carries on from it, never reset. */
export const presentXReport = (
  registerId: string,
  totals: PosReportTotals,
  last: Pick<PosZReportRow, 'period_end' | 'grand_total'> | undefined,
  generatedAt: Date,
) => ({
  ...totals,
  object: 'pos.x_report' as const,
  register: registerId,
  period_start: last ? unix(last.period_end) : null,
  generated_at: unix(generatedAt),
  grand_total: (last?.grand_total ?? 0) + totals.net_sales,
});

export const PosZReportSchema = TotalsSchema.extend({
  id: z.string(),
  object: z.literal('pos.z_report'),
  livemode: z.boolean(),
  register: z.string(),
  number: z.number().int().describe('Consecutive per register, from 1'),
  period_start: z.number().nullable(),
  period_end: z.number(),
  grand_total: z.number().int().describe('Net sales since the register began, never reset'),
  made_by: z.string(),
  created_at: z.number(),
});
export function presentZReport(z: PosZReportRow) {
  const totals = z.report as unknown as PosReportTotals;
  return {
    ...totals,
    // A Z-report made before decision 0234's addendum stored VAT per rate only; it is immutable,
    // so its lines read with the category a line without one had then (Z at 0 %, S otherwise).
    vat: (
      totals.vat as (Omit<PosReportTotals['vat'][number], 'category'> & { category?: VatCategory })[]
    ).map((v) => ({ ...v, category: v.category ?? tillVatCategory(v.rate, null) })),
    id: z.id,
    object: 'pos.z_report' as const,
    livemode: z.livemode,
    register: z.register_id,
    number: z.number,
    period_start: unix(z.period_start),
    period_end: unix(z.period_end),
    grand_total: z.grand_total,
    made_by: z.made_by,
    created_at: unix(z.created_at),
  };
}
