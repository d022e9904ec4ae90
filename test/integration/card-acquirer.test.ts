import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { simulatedAcquirerRouter } from '../../simulators/acquirer';
import { createHttpCardAcquirer } from '../../bank-adapters/http-card-acquirer';
import { AcquirerCardError, AcquirerUnavailableError } from '../../bank-adapters/card-acquirer';

/** The real HTTP client against the simulated acquirer service: latency, timeouts, retries, replay. */

async function serve(latencyMs: number) {
  const app = express();
  app.use('/_sim/acquirer', simulatedAcquirerRouter({ latencyMs }));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/_sim/acquirer`;
  return {
    base,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const card = (number: string) => ({ number, exp_month: 12, exp_year: 2034, cvc: '123' });

test('configurable latency delays every answer; a timeout is retryable and ends as unavailable', async () => {
  const sim = await serve(150);
  try {
    const client = createHttpCardAcquirer({ baseUrl: sim.base });
    const started = Date.now();
    const token = await client.tokenize(card('4242424242424242'));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(token).toMatchObject({
      brand: 'visa',
      last4: '4242',
      exp_month: 12,
      exp_year: 2034,
      wallet: null,
    });
    expect(JSON.stringify(token)).not.toContain('4242424242424242');

    const impatient = createHttpCardAcquirer({
      baseUrl: sim.base,
      timeoutMs: 40,
      maxRetries: 1,
      backoffMs: () => 1,
    });
    await expect(impatient.tokenize(card('4242424242424242'))).rejects.toBeInstanceOf(
      AcquirerUnavailableError,
    );
  } finally {
    await sim.close();
  }
});

test('card errors are final; the processing-error card succeeds on the retry; keys replay', async () => {
  const sim = await serve(0);
  try {
    const client = createHttpCardAcquirer({ baseUrl: sim.base, backoffMs: () => 1 });
    await expect(client.tokenize({ ...card('4242424242424241') })).rejects.toBeInstanceOf(AcquirerCardError);
    await expect(client.tokenize({ ...card('4242424242424242'), exp_year: 2001 })).rejects.toMatchObject({
      code: 'expired_card',
      retryable: false,
    });

    const noRetry = createHttpCardAcquirer({ baseUrl: sim.base, maxRetries: 0 });
    const flaky = await client.tokenize(card('4000000000000119'));
    const req = {
      token: flaky.token,
      amount: 500,
      currency: 'ISK' as const,
      merchant: 'acct_1',
      return_url: '',
    };
    await expect(noRetry.authorize({ ...req, idempotency_key: 'k1' })).rejects.toMatchObject({
      code: 'processing_error',
      retryable: true,
    });
    expect(await client.authorize({ ...req, idempotency_key: 'k2' })).toMatchObject({ status: 'authorized' });

    const ok = await client.tokenize(card('4242424242424242'));
    const a1 = await client.authorize({ ...req, token: ok.token, idempotency_key: 'same' });
    const a2 = await client.authorize({ ...req, token: ok.token, idempotency_key: 'same' });
    expect(a2.id).toBe(a1.id);
    const c1 = await client.capture({ authorization: a1.id, amount: 500, idempotency_key: 'cap' });
    const c2 = await client.capture({ authorization: a1.id, amount: 500, idempotency_key: 'cap' });
    expect([c1.status, c2.status, c2.amount_captured]).toEqual(['captured', 'captured', 500]);
    const r = await client.refund({ authorization: a1.id, amount: 300, idempotency_key: 'r1' });
    expect(await client.refund({ authorization: a1.id, amount: 300, idempotency_key: 'r1' })).toEqual(r);
    await expect(
      client.refund({ authorization: a1.id, amount: 300, idempotency_key: 'r2' }),
    ).rejects.toMatchObject({ retryable: false });
  } finally {
    await sim.close();
  }
});
