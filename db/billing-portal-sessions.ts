import { createHash } from 'node:crypto';
import type { Locale } from '../domain/locale';
import type { Db } from './knex';
import type { Scope } from '../domain/scope';
import { newId, ID_PREFIX, randomBase62 } from '../domain/ids';

export interface PortalSessionRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  customer_id: string;
  return_url: string;
  locale: Locale | null;
  allowed_prices: string[];
  token_hash: string;
  expires_at: Date;
  opened_at: Date | null;
  created_at: Date;
}

/** How long a portal link and the visit it opens last. */
export const PORTAL_SESSION_TTL_MS = 30 * 60_000;

export const hashPortalToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Billing portal sessions: the URL carries a secret token, stored only as its hash. */
export function createPortalSessionRepository(db: Db) {
  return {
    async create(
      scope: Scope,
      input: { customerId: string; returnUrl: string; locale: Locale | null; allowedPrices: string[] },
      trx: Db = db,
    ): Promise<{ row: PortalSessionRow; token: string }> {
      const token = randomBase62(40);
      const [row] = await trx<PortalSessionRow>('billing_portal_sessions')
        .insert({
          id: newId(ID_PREFIX.billingPortalSession),
          merchant_id: scope.merchantId,
          livemode: scope.livemode,
          customer_id: input.customerId,
          return_url: input.returnUrl,
          locale: input.locale,
          allowed_prices: input.allowedPrices,
          token_hash: hashPortalToken(token),
          expires_at: new Date(Date.now() + PORTAL_SESSION_TTL_MS),
        })
        .returning('*');
      return { row: row!, token };
    },

    async findByToken(token: string, trx: Db = db): Promise<PortalSessionRow | undefined> {
      return trx<PortalSessionRow>('billing_portal_sessions')
        .where({ token_hash: hashPortalToken(token) })
        .first();
    },

    /** Marks the link used; true only for the first caller. */
    async open(id: string, trx: Db = db): Promise<boolean> {
      const n = await trx('billing_portal_sessions')
        .where({ id })
        .whereNull('opened_at')
        .update({ opened_at: trx.fn.now() });
      return n === 1;
    },
  };
}
