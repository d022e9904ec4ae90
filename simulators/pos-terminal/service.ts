import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import type { CardAcquirer, CardToken, TokenizeRequest } from '../../adapters/acquirers/card-acquirer';
import { AcquirerCardError } from '../../adapters/acquirers/card-acquirer';
import { pairingCode } from '../../domain/pos';

export interface SimulatedTerminalOptions {
  /** The acquirer it has tokenize the cards it reads (the shared simulated acquirer). */
  acquirer: CardAcquirer;
  /** Where Skil is; the terminal announces its registration code there at start. Unset: no announcement. */
  skilUrl?: string;
  /** `simulated_reader` (a countertop reader) or `tap_to_pay` (a staff phone). */
  deviceType?: 'simulated_reader' | 'tap_to_pay';
  /** How long a collect waits for a card to be presented. */
  waitForCardMs?: number;
  port?: number;
  host?: string;
}

export interface SimulatedTerminal {
  url: string;
  /** The code its screen shows until it is paired. */
  registrationCode: string;
  /** What its screen shows now. */
  screen(): { registration_code: string | null; paired: boolean; message: string };
  /** A card held to the reader (a test card number of docs/guides/testing.md); used by the next payment. */
  present(card: Partial<TokenizeRequest> & { number: string }): void;
  /** Announces the registration code to Skil (done at start when `skilUrl` is set). */
  announce(skilUrl: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The simulated card terminal (decision 0131): another system with its own state. It shows
 * a registration code, pairs when Skil sends that code with a secret, and answers payments the
 * register pushes to it over HTTP by reading the next presented card and having the acquirer
 * tokenize it. Its own test control (`POST /present`) stands for a buyer tapping a card.
 */
export async function startSimulatedTerminal(opts: SimulatedTerminalOptions): Promise<SimulatedTerminal> {
  const registrationCode = pairingCode();
  let pairing: { terminal: string; secret: string } | null = null;
  let message = 'Ready to pair';
  const cards: (Partial<TokenizeRequest> & { number: string })[] = [];
  const waiting: (() => void)[] = [];
  const done = new Map<string, unknown>();

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const read = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    } catch {
      return {};
    }
  };
  const sameSecret = (given: string) => {
    const a = Buffer.from(given);
    const b = Buffer.from(pairing?.secret ?? '');
    return pairing !== null && a.length === b.length && timingSafeEqual(a, b);
  };
  async function nextCard(): Promise<(typeof cards)[number] | null> {
    if (cards.length) return cards.shift()!;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, opts.waitForCardMs ?? 30_000);
      waiting.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    return cards.shift() ?? null;
  }

  async function collect(amount: number): Promise<unknown> {
    message = `Present card: ${amount} kr.`;
    const card = await nextCard();
    if (!card) {
      message = 'Timed out';
      return { status: 'failed', code: 'card_not_presented', message: 'No card was presented' };
    }
    let token: CardToken;
    try {
      token = await opts.acquirer.tokenize({
        number: card.number,
        exp_month: card.exp_month ?? 12,
        exp_year: card.exp_year ?? new Date().getUTCFullYear() + 3,
        cvc: card.cvc ?? '123',
        wallet: card.wallet ?? null,
      });
    } catch (err) {
      if (!(err instanceof AcquirerCardError)) throw err;
      message = 'Card refused';
      return { status: 'failed', code: err.code, message: err.message };
    }
    message = 'Card read';
    return { status: 'collected', card: token };
  }

  const server: Server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'GET' && path === '/screen') return send(res, 200, screen());
      if (req.method !== 'POST') return send(res, 405, { error: { message: 'POST only' } });
      const body = await read(req);
      if (path === '/present') {
        if (typeof body.number !== 'string') return send(res, 400, { error: { message: 'number required' } });
        present(body as { number: string });
        return send(res, 200, { presented: true });
      }
      if (path === '/pair') {
        if (body.registration_code !== registrationCode || pairing)
          return send(res, 403, { error: { message: 'wrong registration code, or already paired' } });
        pairing = { terminal: String(body.terminal), secret: String(body.secret) };
        message = 'Paired';
        return send(res, 200, { paired: true });
      }
      if (path === '/collect') {
        const auth = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '');
        if (!auth || !sameSecret(auth[1]!))
          return send(res, 401, { error: { message: 'not paired with you' } });
        const amount = Number(body.amount);
        if (!Number.isSafeInteger(amount) || amount < 1)
          return send(res, 400, { error: { message: 'amount must be a whole ISK amount' } });
        // A retried push with the same reference gets the same answer, never a second read.
        const key = String(req.headers['idempotency-key'] ?? '');
        if (key && done.has(key)) return send(res, 200, done.get(key));
        const out = await collect(amount);
        if (key) done.set(key, out);
        return send(res, 200, out);
      }
      return send(res, 404, { error: { message: 'no such path' } });
    })().catch((err: unknown) => send(res, 500, { error: { message: String(err) } }));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const url = `http://${opts.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;

  function screen() {
    return { registration_code: pairing ? null : registrationCode, paired: pairing !== null, message };
  }
  function present(card: Partial<TokenizeRequest> & { number: string }) {
    cards.push(card);
    waiting.splice(0).forEach((wake) => wake());
  }
  async function announce(skilUrl: string) {
    const res = await fetch(`${skilUrl}/v1/pos/terminal_announcements`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        registration_code: registrationCode,
        url,
        device_type: opts.deviceType ?? 'simulated_reader',
      }),
    });
    if (res.status !== 200)
      throw new Error(`Skil refused the announcement: ${res.status} ${await res.text()}`);
  }
  if (opts.skilUrl) await announce(opts.skilUrl);
  return {
    url,
    registrationCode,
    screen,
    present,
    announce,
    async stop() {
      waiting.splice(0).forEach((wake) => wake());
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
