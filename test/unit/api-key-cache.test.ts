import { createApiKeyCache } from '../../services/api-key-cache';
import type { ApiKeyRow } from '../../db/api-keys';

const row = (id: string): ApiKeyRow => ({
  id,
  merchant_id: 'acct_1',
  livemode: false,
  key_hash: `hash-${id}`,
  last4: '0000',
  created_at: new Date(0),
  revoked_at: null,
  last_used_at: null,
});

/** A loader that counts its database round trips. */
function loader(answer: () => ApiKeyRow | undefined) {
  const calls = { n: 0 };
  return {
    calls,
    load: () => {
      calls.n++;
      return Promise.resolve(answer());
    },
  };
}

describe('API key cache (decision 0186)', () => {
  test('keeps nothing until change notices are heard', async () => {
    const cache = createApiKeyCache();
    const l = loader(() => row('k1'));
    await cache.lookup('h1', l.load);
    await cache.lookup('h1', l.load);
    expect(l.calls.n).toBe(2);
  });

  test('while hearing, a key is looked up once; its change drops it', async () => {
    const cache = createApiKeyCache();
    cache.handlers.listening();
    let active: ApiKeyRow | undefined = row('k1');
    const l = loader(() => active);
    expect(await cache.lookup('h1', l.load)).toEqual(row('k1'));
    expect(await cache.lookup('h1', l.load)).toEqual(row('k1'));
    expect(l.calls.n).toBe(1);
    active = undefined;
    cache.handlers.changed('h1');
    expect(await cache.lookup('h1', l.load)).toBeUndefined();
    expect(l.calls.n).toBe(2);
  });

  test('unknown or revoked keys are never kept: a key created later works at once', async () => {
    const cache = createApiKeyCache();
    cache.handlers.listening();
    const known = new Map<string, ApiKeyRow>();
    const l = loader(() => known.get('h1'));
    expect(await cache.lookup('h1', l.load)).toBeUndefined();
    known.set('h1', row('k1'));
    expect(await cache.lookup('h1', l.load)).toEqual(row('k1'));
  });

  test('a lost connection drops every key and stops keeping them until heard again', async () => {
    const cache = createApiKeyCache();
    cache.handlers.listening();
    const l = loader(() => row('k1'));
    await cache.lookup('h1', l.load);
    cache.handlers.lost(new Error('gone'));
    await cache.lookup('h1', l.load);
    await cache.lookup('h1', l.load);
    expect(l.calls.n).toBe(3);
    cache.handlers.listening();
    await cache.lookup('h1', l.load);
    await cache.lookup('h1', l.load);
    expect(l.calls.n).toBe(4);
  });

  test('a lookup that overlapped a change is not kept (read before the revocation committed)', async () => {
    const cache = createApiKeyCache();
    cache.handlers.listening();
    let release!: () => void;
    const pending = cache.lookup(
      'h1',
      () =>
        new Promise<ApiKeyRow>((resolve) => {
          release = () => resolve(row('k1'));
        }),
    );
    // The revocation commits and its notice arrives while the stale read is still on its way.
    cache.handlers.changed('h1');
    release();
    expect(await pending).toEqual(row('k1'));
    const l = loader(() => undefined);
    expect(await cache.lookup('h1', l.load)).toBeUndefined();
    expect(l.calls.n).toBe(1);
  });

  test('a kept key is asked again after its time to live', async () => {
    let now = 0;
    const cache = createApiKeyCache({ ttlMs: 1000, now: () => now });
    cache.handlers.listening();
    const l = loader(() => row('k1'));
    await cache.lookup('h1', l.load);
    now = 999;
    await cache.lookup('h1', l.load);
    expect(l.calls.n).toBe(1);
    now = 1000;
    await cache.lookup('h1', l.load);
    expect(l.calls.n).toBe(2);
  });
});
