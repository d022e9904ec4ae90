import { z } from 'zod';

// The VAT breakdown per rate that a sale, its receipt and the X/Z reports all show.

export const VatRateSchema = z.union([z.literal(0), z.literal(11), z.literal(24)]);

export const VatLineSchema = z.object({
  rate: VatRateSchema,
  gross: z.number().int(),
  vat: z.number().int(),
  net: z.number().int(),
});
