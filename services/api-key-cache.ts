import type { ApiKeyRow } from '../db/api-keys';
import type { ApiKeyChangeHandlers } from '../db/api-key-changes';

/** Longest a looked-up key is trusted without asking again, even while every change is heard. */
const TTL_MS = 60_000;
const MAX_KEYS = 50_000;

/**
 * Active API keys this process has looked up, by hash (decision 0186), so that authenticating a
 * request is not a database round trip each time. Trusted only while the process hears every key
 * change (`api_key_changed`, sent by a trigger on commit): a change drops its key, a lost connection
 * drops them all and stops caching until it listens again. A lookup that overlapped any change is not
 * kept, so a key read just before its revocation committed cannot outlive the notice. Unknown and
 * revoked keys are never kept: a new key works at once.
 */
export function createApiKeyCache(opts: { ttlMs?: number; now?: () => number } = {}) {
  const ttlMs = opts.ttlMs ?? TTL_MS;
  const now = opts.now ?? Date.now;
  const keys = new Map<string, { row: ApiKeyRow; at: number }>();
  let hearing = false;
  // Bumped by every change and by every loss: a lookup begun under another epoch is not kept.
  let epoch = 0;

  const handlers: ApiKeyChangeHandlers = {
    listening() {
      keys.clear();
      epoch++;
      hearing = true;
    },
    changed(keyHash) {
      keys.delete(keyHash);
      epoch++;
    },
    lost() {
      hearing = false;
      keys.clear();
      epoch++;
    },
  };

  return {
    handlers,
    /** The active key with this hash, from memory when it may be, else from `load`. */
    async lookup(
      keyHash: string,
      load: () => Promise<ApiKeyRow | undefined>,
    ): Promise<ApiKeyRow | undefined> {
      const kept = hearing ? keys.get(keyHash) : undefined;
      if (kept && now() - kept.at < ttlMs) return kept.row;
      const began = epoch;
      const row = await load();
      if (row && hearing && epoch === began) {
        if (keys.size >= MAX_KEYS) keys.clear();
        keys.set(keyHash, { row, at: now() });
      } else keys.delete(keyHash);
      return row;
    },
  };
}

export type ApiKeyCache = ReturnType<typeof createApiKeyCache>;
