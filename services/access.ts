import type { Knex } from '../db/knex';
import type { Scope } from '../domain/scope';
import { createApiKeyRepository, hashApiKey } from '../db/api-keys';
import type { ApiKeyCache } from './api-key-cache';
import { createUserRepository, type UserRow } from '../db/users';

const API_KEY_SHAPE = /^sk_(test|live)_[0-9A-Za-z]{20,100}$/;
const OPERATOR_TOKEN_SHAPE = /^op_[0-9A-Za-z]{40}$/;
/** As db/api-keys' touch: last use is kept to the minute. */
const TOUCH_EVERY_MS = 60_000;

/** An operator of the service (finance and onboarding review), as the operator API sees them. */
export type Operator = UserRow;

/** Who a credential belongs to: API keys open a merchant's environment, operator tokens the operator API. */
export function createAccessService(deps: {
  knex: Knex;
  onTouchError?: (err: unknown) => void;
  /** Keys already looked up, kept while every change to them is heard (decision 0186). */
  keyCache?: ApiKeyCache;
}) {
  const keys = createApiKeyRepository(deps.knex);
  const users = createUserRepository(deps.knex);
  // The database records use at most once a minute; asking it every request was a write per request.
  const touched = new Map<string, number>();
  const touch = (id: string) => {
    const now = Date.now();
    if (now - (touched.get(id) ?? 0) < TOUCH_EVERY_MS) return;
    if (touched.size >= 50_000) touched.clear();
    touched.set(id, now);
    keys.touch(id).catch((err: unknown) => deps.onTouchError?.(err));
  };
  return {
    /**
     * The merchant and environment an API key opens, or undefined for an unknown, revoked or
     * malformed key. The key's last use is recorded in the background: a slow write never delays
     * the request it authenticates.
     */
    async scopeForApiKey(secret: string): Promise<Scope | undefined> {
      return (await this.apiKey(secret))?.scope;
    },

    /** The key itself (its id, for limits kept per key) and the scope it opens; see scopeForApiKey. */
    async apiKey(secret: string): Promise<{ id: string; scope: Scope } | undefined> {
      if (!API_KEY_SHAPE.test(secret)) return undefined;
      const row = deps.keyCache
        ? await deps.keyCache.lookup(hashApiKey(secret), () => keys.findActiveBySecret(secret))
        : await keys.findActiveBySecret(secret);
      if (!row) return undefined;
      touch(row.id);
      return { id: row.id, scope: { merchantId: row.merchant_id, livemode: row.livemode } };
    },

    /** The operator an `op_…` token belongs to, or undefined. */
    async operatorForToken(token: string): Promise<Operator | undefined> {
      return OPERATOR_TOKEN_SHAPE.test(token) ? users.findOperatorByToken(token) : undefined;
    },
  };
}

export type AccessService = ReturnType<typeof createAccessService>;
