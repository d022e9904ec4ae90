import { z } from 'zod';
import { LOCALES } from '../../domain/locale';
import type { PortalSessionRow } from '../../db/billing-portal-sessions';
import { unix } from '../../domain/unix-time';

export const PortalSessionSchema = z.object({
  id: z.string(),
  object: z.literal('billing_portal.session'),
  livemode: z.boolean(),
  customer: z.string(),
  return_url: z.string(),
  locale: z.enum(LOCALES).nullable(),
  url: z.string().describe('Single use; expires after 30 minutes'),
  expires_at: z.number(),
  created_at: z.number(),
});

/** The portal session object; its URL carries the secret token, known only when it is created. */
export function presentPortalSession(row: PortalSessionRow, token: string, baseUrl: string) {
  return {
    id: row.id,
    object: 'billing_portal.session' as const,
    livemode: row.livemode,
    customer: row.customer_id,
    return_url: row.return_url,
    locale: row.locale,
    url: `${baseUrl}/portal/${token}`,
    expires_at: unix(row.expires_at),
    created_at: unix(row.created_at),
  };
}
