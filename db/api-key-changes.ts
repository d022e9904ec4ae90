import pg from 'pg';

/** What a process hears about API key changes (migration 20261227_0100_api_key_change_notices). */
export interface ApiKeyChangeHandlers {
  /** LISTEN is in place: from now on every committed change is heard. */
  listening(): void;
  /** The key with this hash changed (revoked, deleted, moved). */
  changed(keyHash: string): void;
  /** The connection is gone: changes from now until `listening` again may be missed. */
  lost(err: unknown): void;
}

const RECONNECT_MS = 1000;

/**
 * Listens on `api_key_changed` over one connection of its own (outside the pool: LISTEN holds it),
 * reconnecting after a loss. Returns a function that stops it.
 */
export function listenForApiKeyChanges(databaseUrl: string, on: ApiKeyChangeHandlers): () => Promise<void> {
  let stopped = false;
  let client: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (): Promise<void> => {
    const c = new pg.Client({ connectionString: databaseUrl, keepAlive: true });
    client = c;
    let down = false;
    const fail = (err: unknown) => {
      if (down) return;
      down = true;
      if (!stopped) on.lost(err);
      void c.end().catch(() => undefined);
      if (!stopped) retry = setTimeout(() => void connect(), RECONNECT_MS);
    };
    c.on('error', fail);
    c.on('end', () => fail(new Error('connection ended')));
    c.on('notification', (msg) => {
      if (msg.channel === 'api_key_changed' && msg.payload) on.changed(msg.payload);
    });
    try {
      await c.connect();
      await c.query('listen api_key_changed');
      if (!down && !stopped) on.listening();
    } catch (err) {
      fail(err);
    }
  };
  void connect();

  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    await client?.end().catch(() => undefined);
  };
}
