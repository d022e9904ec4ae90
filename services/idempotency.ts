import { createHash } from 'node:crypto';
import type { Knex } from '../db/knex';
import type { Scope } from '../domain/scope';
import { createIdempotencyRepository } from '../db/idempotency';
import { IdempotencyError, InvalidRequestError } from '../domain/errors';
import { SEALED_AT, type SecretBox } from '../domain/secret-box';

/** JSON with object keys sorted, so the same parameters hash alike in any key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two requests "the same" for a key: method, path and parameters in any key order. */
export function requestHash(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method} ${path}\n${canonical(body)}`)
    .digest('hex');
}

export interface StoredResponse {
  status: number;
  contentType: string | null;
  body: string;
}

/** The outcome of beginning a request under a key: run it, or answer what its first run answered. */
export type IdempotentStart = { kind: 'first' } | ({ kind: 'replay' } & StoredResponse);

/**
 * Idempotency keys (architecture, "API conventions"): the first response under a key is kept for
 * 24 hours and replayed byte for byte; the same key with other parameters is refused; a key whose
 * first request is still running is refused with 409; a failure (5xx) is forgotten, so it may be
 * retried. Every surface that takes a key (the API's `Idempotency-Key`, agents' tool calls) keeps
 * these rules here, in one store. A stored answer may hold a secret (a channel's signing secret),
 * so every one is sealed with `secrets` at rest and opened for the replay (decision 0112).
 */
export function createIdempotencyService(deps: { knex: Knex; secrets: SecretBox }) {
  const repo = createIdempotencyRepository(deps.knex);
  return {
    async begin(
      scope: Scope,
      request: { key: string; method: string; path: string; params: unknown },
      param = 'Idempotency-Key',
    ): Promise<IdempotentStart> {
      const { key, method, path } = request;
      if (key.length < 1 || key.length > 255) {
        throw new InvalidRequestError(`${param} must be 1 to 255 characters`, {
          code: 'parameter_invalid',
          param,
        });
      }
      const hash = requestHash(method, path, request.params);
      const claim = await repo.claim(scope, { key, method, path, requestHash: hash });
      if (claim.claimed) return { kind: 'first' };
      const row = claim.existing;
      if (row.request_hash !== hash) {
        throw new IdempotencyError(
          400,
          `Keys for idempotent requests can only be used with the same parameters they were first used with. Try a new key for a different request (this key was used for ${row.method} ${row.path}).`,
          'idempotency_key_reused',
          param,
        );
      }
      if (row.state === 'in_flight') {
        throw new IdempotencyError(
          409,
          `A request with this ${param} is still being processed. Retry after it finishes.`,
          'idempotency_key_in_use',
          param,
        );
      }
      return {
        kind: 'replay',
        status: row.response_status ?? 200,
        contentType: row.response_content_type,
        body:
          row.response_body === null
            ? ''
            : deps.secrets.open(row.response_body, SEALED_AT.replay(scope.merchantId, scope.livemode, key)),
      };
    },

    /**
     * Forgets a key whose request was refused before it did anything, for a reason that may pass
     * (a limit): the same request may be sent again, as after a 429 from the API's rate limit,
     * which answers before a key is taken.
     */
    async release(scope: Scope, key: string): Promise<void> {
      await repo.release(scope, key);
    },

    /** Keeps the first answer under the key; a server failure releases the key instead. */
    async finish(scope: Scope, key: string, response: StoredResponse): Promise<void> {
      if (response.status >= 500) await repo.release(scope, key);
      else
        await repo.complete(scope, key, {
          ...response,
          body: deps.secrets.seal(response.body, SEALED_AT.replay(scope.merchantId, scope.livemode, key)),
        });
    },
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
