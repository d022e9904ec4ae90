import { z } from 'zod';

// The VAT breakdown per category and rate that a sale, its receipt and the X/Z reports all show
// (decision 0234): `category` beside `rate`, so zero-rated, exempt and outside-the-scope takings at
// 0 % are separate lines.

export const VatRateSchema = z.union([z.literal(0), z.literal(11), z.literal(24)]);

export const VatLineSchema = z.object({
  rate: VatRateSchema,
  category: z
    .enum(['S', 'Z', 'E', 'O'])
    .describe('S standard, Z zero rated, E exempt, O outside the scope of VAT (decision 0234)'),
  gross: z.number().int(),
  vat: z.number().int(),
  net: z.number().int(),
});
