import { z } from 'zod';
import type { PlatformConnectionRow } from '../../db/platform-connections';
import { PLATFORMS } from '../../domain/platform-orders';
import { unix } from '../../domain/unix-time';

export const PlatformConnectionSchema = z.object({
  id: z.string().regex(/^pcon_/),
  object: z.literal('platform_connection'),
  livemode: z.boolean(),
  platform: z.enum(PLATFORMS),
  shop: z.string().describe('Shopify: the shop domain; WooCommerce: the site URL its webhooks name'),
  webhook_url: z.string().describe('Where the platform sends its order webhooks'),
  claim_payment_methods: z
    .array(z.string())
    .describe('Payment method ids (WooCommerce) or gateway names (Shopify) that mean a krafa'),
  created_at: z.number(),
});

export const DeletedPlatformConnectionSchema = z.object({
  id: z.string(),
  object: z.literal('platform_connection'),
  deleted: z.literal(true),
});

/** The connection as the API shows it; the secret is never shown again. */
export function presentPlatformConnection(row: PlatformConnectionRow, publicBaseUrl: string) {
  return {
    id: row.id,
    object: 'platform_connection' as const,
    livemode: row.livemode,
    platform: row.platform,
    shop: row.shop,
    webhook_url: `${publicBaseUrl}/api/v1/${row.platform}/webhook/`,
    claim_payment_methods: row.claim_payment_methods,
    created_at: unix(row.created_at),
  };
}
