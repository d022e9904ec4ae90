import { verify } from '@octokit/webhooks-methods';
import type { IncomingHttpHeaders } from 'node:http';
import { randomBase62 } from '../../domain/ids';
import { startTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';

let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ schedule: [0] });
  merchant = await stack.merchant();
});
afterAll(async () => {
  await stack.stop();
});

/**
 * What docs/guides/api-overview.md tells a receiver to do: compute the HMAC with the secret it holds and accept the
 * request when it matches X-Service-Signature or, during a rotation, X-Service-Signature-Previous.
 */
async function receiverAccepts(secret: string, raw: string, headers: IncomingHttpHeaders): Promise<boolean> {
  for (const name of ['x-service-signature', 'x-service-signature-previous']) {
    const value = headers[name];
    if (typeof value === 'string' && (await verify(secret, raw, value))) return true;
  }
  return false;
}

test('a rotated secret signs at once; the previous one signs an extra header until its overlap ends', async () => {
  const receiver = await startReceiver();
  try {
    const created = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { type: 'webhook', config: { url: receiver.url }, event_subscriptions: ['*'] },
    });
    const id: string = created.body.id;
    const old: string = created.body.config.secret;
    expect(created.body.config.previous_secret_expires_at).toBeNull();

    const before = Math.floor(Date.now() / 1000);
    const headers = { 'idempotency-key': `rotate-${randomBase62(8)}` };
    const rotated = await stack.api(merchant.testKey, `/v1/notification-channels/${id}/rotate-secret`, {
      method: 'POST',
      json: { previous_secret_expires_in: 3600 },
      headers,
    });
    expect(rotated.status).toBe(200);
    const current: string = rotated.body.config.secret;
    expect(current).toMatch(/^whsec_[0-9A-Za-z]{32}$/);
    expect(current).not.toBe(old);
    expect(rotated.body.config.previous_secret_expires_at).toBeGreaterThanOrEqual(before + 3600);
    expect(rotated.body.config.previous_secret_expires_at).toBeLessThanOrEqual(before + 3602);
    // The same key replays the rotation rather than rotating again.
    const again = await stack.api(merchant.testKey, `/v1/notification-channels/${id}/rotate-secret`, {
      method: 'POST',
      json: { previous_secret_expires_in: 3600 },
      headers,
    });
    expect(again.text).toBe(rotated.text);
    expect((await stack.api(merchant.testKey, `/v1/notification-channels/${id}`)).body.config.secret).toBe(
      current,
    );

    await stack.api(merchant.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: { channel: id },
    });
    const [during] = await receiver.waitFor(1);
    const raw = during!.rawBody.toString('utf8');
    // Spec §6.3: exactly one sha256= value in X-Service-Signature, by the current secret.
    expect(during!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    await expect(verify(current, raw, during!.headers['x-service-signature'] as string)).resolves.toBe(true);
    await expect(verify(old, raw, during!.headers['x-service-signature-previous'] as string)).resolves.toBe(
      true,
    );
    // A receiver still holding the old secret and one already holding the new both accept.
    expect(await receiverAccepts(old, raw, during!.headers)).toBe(true);
    expect(await receiverAccepts(current, raw, during!.headers)).toBe(true);
    expect(await receiverAccepts('whsec_someone_else', raw, during!.headers)).toBe(false);

    // Rotating with no overlap ends the previous secret at once.
    const now = await stack.api(merchant.testKey, `/v1/notification-channels/${id}/rotate-secret`, {
      method: 'POST',
      json: { previous_secret_expires_in: 0 },
    });
    expect(now.status).toBe(200);
    const newest: string = now.body.config.secret;
    expect(now.body.config.previous_secret_expires_at).toBeNull();
    await stack.api(merchant.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: { channel: id },
    });
    const [, after] = await receiver.waitFor(2);
    const raw2 = after!.rawBody.toString('utf8');
    expect(after!.headers['x-service-signature-previous']).toBeUndefined();
    expect(await receiverAccepts(newest, raw2, after!.headers)).toBe(true);
    expect(await receiverAccepts(current, raw2, after!.headers)).toBe(false);
    expect(await receiverAccepts(old, raw2, after!.headers)).toBe(false);
  } finally {
    await receiver.close();
  }
});

test('the overlap ends when it says; a rotation is refused an overlap outside 0 to 7 days', async () => {
  const receiver = await startReceiver();
  try {
    const created = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { type: 'webhook', config: { url: receiver.url }, event_subscriptions: ['*'] },
    });
    const id: string = created.body.id;
    for (const bad of [-1, 7 * 24 * 3600 + 1, 1.5, 'soon']) {
      const res = await stack.api(merchant.testKey, `/v1/notification-channels/${id}/rotate-secret`, {
        method: 'POST',
        json: { previous_secret_expires_in: bad },
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request_error',
        param: 'previous_secret_expires_in',
      });
    }
    const missing = await stack.api(merchant.testKey, '/v1/notification-channels/nc_nope/rotate-secret', {
      method: 'POST',
      json: {},
    });
    expect(missing.status).toBe(404);

    const rotated = await stack.api(merchant.testKey, `/v1/notification-channels/${id}/rotate-secret`, {
      method: 'POST',
      json: { previous_secret_expires_in: 1 },
    });
    expect(rotated.status).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    await stack.api(merchant.testKey, '/v1/notification-channels/test-webhooks', {
      method: 'POST',
      json: { channel: id },
    });
    const [hit] = await receiver.waitFor(1);
    expect(hit!.headers['x-service-signature-previous']).toBeUndefined();
    await expect(
      verify(
        rotated.body.config.secret,
        hit!.rawBody.toString('utf8'),
        hit!.headers['x-service-signature'] as string,
      ),
    ).resolves.toBe(true);
    // The default overlap is 24 hours.
    const byDefault = await stack.api(merchant.testKey, `/v1/notification-channels/${id}/rotate-secret`, {
      method: 'POST',
      json: {},
    });
    expect(byDefault.body.config.previous_secret_expires_at - Math.floor(Date.now() / 1000)).toBeGreaterThan(
      24 * 3600 - 10,
    );
  } finally {
    await receiver.close();
  }
});
