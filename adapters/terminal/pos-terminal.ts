import type { CardToken } from '../acquirers/card-acquirer';

/**
 * A card terminal paired to a register (decision 0131). The register pushes a payment to
 * the terminal over HTTP+JSON; the terminal reads the card, has the acquirer tokenize it (the card
 * number never reaches Skil) and answers with the token, which Skil authorizes and captures as a
 * payment intent of channel `pos`. A staff phone doing tap to pay speaks the same protocol.
 *
 *   POST {url}/pair     { registration_code, terminal, secret }   → 200 { paired: true }
 *   POST {url}/collect  { amount, currency, reference }           → 200 { status: 'collected', card }
 *        Authorization: Bearer <secret>, Idempotency-Key: <sale reference>  | 200 { status: 'failed', code }
 */
export interface PosTerminal {
  pair(url: string, req: { registration_code: string; terminal: string; secret: string }): Promise<void>;
  collect(
    url: string,
    secret: string,
    req: { amount: number; currency: 'ISK'; reference: string },
  ): Promise<CollectResult>;
}

export type CollectResult =
  { status: 'collected'; card: CardToken } | { status: 'failed'; code: string; message: string };

/** The terminal failed to answer or answered outside the protocol; nothing was charged. */
export class TerminalUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TerminalUnavailableError';
  }
}

/** The terminal refused the pairing (a wrong registration code, already paired elsewhere). */
export class TerminalPairingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TerminalPairingError';
  }
}

/** The HTTP client of the terminal protocol; `timeoutMs` bounds how long a buyer may take to tap. */
export function createHttpPosTerminal(opts: { timeoutMs?: number } = {}): PosTerminal {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  async function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
    let res: Response;
    try {
      res = await fetch(new URL(path, url.endsWith('/') ? url : `${url}/`), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new TerminalUnavailableError(`the terminal did not answer: ${(err as Error).message}`);
    }
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    return { status: res.status, json };
  }
  return {
    async pair(url, req) {
      const res = await post(url, 'pair', req);
      if (res.status !== 200 || res.json?.paired !== true)
        throw new TerminalPairingError(
          String((res.json?.error as { message?: string })?.message ?? 'the terminal refused the pairing'),
        );
    },
    async collect(url, secret, req) {
      const res = await post(url, 'collect', req, {
        authorization: `Bearer ${secret}`,
        'idempotency-key': req.reference,
      });
      const j = res.json;
      if (res.status === 200 && j?.status === 'collected' && typeof j.card === 'object' && j.card)
        return { status: 'collected', card: j.card as CardToken };
      if (res.status === 200 && j?.status === 'failed')
        return {
          status: 'failed',
          code: typeof j.code === 'string' ? j.code : 'generic_decline',
          message: typeof j.message === 'string' ? j.message : '',
        };
      throw new TerminalUnavailableError(`the terminal answered ${res.status}`);
    },
  };
}
