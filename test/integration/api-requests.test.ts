import { startTestStack, type TestStack, type TestMerchant } from '../helpers/stack';

let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await startTestStack({ worker: false, bodyLimitBytes: 4096 });
  merchant = await stack.merchant();
});
afterAll(async () => {
  await stack.stop();
});

const channelBody = {
  type: 'webhook',
  config: { url: 'http://localhost:9/hook' },
  event_subscriptions: ['*'],
};

function expectEnvelope(res: { status: number; body: any; text: string }, status: number, type: string) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: expect.objectContaining({ type, message: expect.any(String) }) });
  expect(res.text).not.toMatch(/\n\s+at /); // no stack trace
}

describe('authentication', () => {
  test('a missing key is 401 in the envelope', async () => {
    const res = await stack.api(null, '/v1/events');
    expectEnvelope(res, 401, 'authentication_error');
    expect(res.body.error.code).toBe('missing_api_key');
  });

  test('an unknown key is 401, and the message masks it', async () => {
    const res = await stack.api('sk_test_' + 'x'.repeat(40), '/v1/events');
    expectEnvelope(res, 401, 'authentication_error');
    expect(res.body.error.message).not.toContain('x'.repeat(10));
  });

  test('a malformed Authorization header is 401', async () => {
    const res = await stack.api(null, '/v1/events', { headers: { authorization: 'Basic Zm9vOmJhcg==' } });
    expectEnvelope(res, 401, 'authentication_error');
  });

  test('a revoked key is 401', async () => {
    const m = await stack.merchant('Revoked');
    await stack
      .knex('api_keys')
      .where({ merchant_id: m.id, livemode: false })
      .update({ revoked_at: new Date() });
    expectEnvelope(await stack.api(m.testKey, '/v1/events'), 401, 'authentication_error');
  });

  test('x-api-key works as well as the bearer header', async () => {
    const res = await stack.api(null, '/v1/events', { headers: { 'x-api-key': merchant.testKey } });
    expect(res.status).toBe(200);
  });

  test('keys are stored only as hashes', async () => {
    const rows = await stack.knex('api_keys').select('*');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(merchant.testKey);
    expect(dump).not.toContain(merchant.liveKey);
  });
});

describe('bad input', () => {
  test('malformed JSON is 400 invalid_json', async () => {
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"type": "webhook",',
    });
    expectEnvelope(res, 400, 'invalid_request_error');
    expect(res.body.error.code).toBe('invalid_json');
  });

  test('a wrong type names the parameter', async () => {
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, event_subscriptions: 'claim.paid' },
    });
    expectEnvelope(res, 400, 'invalid_request_error');
    expect(res.body.error.param).toBe('event_subscriptions');
  });

  test('a nested bad value names the nested parameter', async () => {
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, config: { url: 42 } },
    });
    expectEnvelope(res, 400, 'invalid_request_error');
    expect(res.body.error.param).toBe('config.url');
  });

  test('a missing parameter is parameter_missing', async () => {
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { config: { url: 'http://localhost:9/' }, event_subscriptions: ['*'] },
    });
    expectEnvelope(res, 400, 'invalid_request_error');
    expect(res.body.error).toMatchObject({ code: 'parameter_missing', param: 'type' });
  });

  test('an unknown field is refused by name', async () => {
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, colour: 'blue' },
    });
    expectEnvelope(res, 400, 'invalid_request_error');
    expect(res.body.error).toMatchObject({ code: 'parameter_unknown', param: 'colour' });
  });

  test('an unknown event type is refused', async () => {
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, event_subscriptions: ['claim.paid', 'claim.exploded'] },
    });
    expectEnvelope(res, 400, 'invalid_request_error');
    expect(res.body.error.param).toBe('event_subscriptions.1');
  });

  test('an oversized body is 413', async () => {
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, description: 'x'.repeat(10_000) },
    });
    expectEnvelope(res, 413, 'invalid_request_error');
    expect(res.body.error.code).toBe('body_too_large');
  });

  test('an oversized chunked body (no Content-Length) is 413 too', async () => {
    const big = JSON.stringify({ ...channelBody, description: 'x'.repeat(10_000) });
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    });
    expectEnvelope(res, 413, 'invalid_request_error');
  });

  test('an array body is refused', async () => {
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: [channelBody],
    });
    expectEnvelope(res, 400, 'invalid_request_error');
  });

  test('an unsupported content type is 415', async () => {
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<channel/>',
    });
    expectEnvelope(res, 415, 'invalid_request_error');
  });

  test('a bad query parameter names it', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=ten', 'after=yesterday', 'bogus=1']) {
      const res = await stack.api(merchant.testKey, `/v1/events?${query}`);
      expectEnvelope(res, 400, 'invalid_request_error');
      expect(res.body.error.param).toBe(query.split('=')[0]);
    }
  });

  test('an unknown route is 404 in the envelope', async () => {
    expectEnvelope(await stack.api(merchant.testKey, '/v1/nothing-here'), 404, 'invalid_request_error');
  });

  test('bad input changes nothing', async () => {
    const before = await stack.knex('notification_channels').count<{ count: number }[]>('* as count');
    await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, colour: 'x' },
    });
    await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, type: 'pager' },
    });
    const after = await stack.knex('notification_channels').count<{ count: number }[]>('* as count');
    expect(after[0]!.count).toBe(before[0]!.count);
  });
});

describe('body encodings', () => {
  test('JSON, form-encoded, multipart and plain text give the same channel', async () => {
    const json = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: channelBody,
    });

    const form = new URLSearchParams({
      type: 'webhook',
      'config[url]': 'http://localhost:9/hook',
      'event_subscriptions[]': '*',
    });
    const urlencoded = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      body: form,
    });

    const fd = new FormData();
    fd.append('type', 'webhook');
    fd.append('config[url]', 'http://localhost:9/hook');
    fd.append('event_subscriptions[]', '*');
    const multipart = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      body: fd,
    });

    const text = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify(channelBody),
    });

    for (const res of [json, urlencoded, multipart, text]) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        type: 'webhook',
        config: { url: 'http://localhost:9/hook' },
        event_subscriptions: ['*'],
      });
    }
  });

  test('integers may arrive as integer-formatted strings', async () => {
    const res = await stack.api(merchant.testKey, '/v1/events?limit=2');
    expect(res.status).toBe(200);
    const form = new URLSearchParams({ limit: '2' });
    expect((await stack.api(merchant.testKey, `/v1/notification-channels?${form.toString()}`)).status).toBe(
      200,
    );
  });
});

describe('tenancy', () => {
  test('a test key cannot see a live object, and is told it exists in live mode', async () => {
    const live = await stack.api(merchant.liveKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, config: { url: 'https://93.184.215.14/hook' } },
    });
    expect(live.status).toBe(200);
    const res = await stack.api(merchant.testKey, `/v1/notification-channels/${live.body.id}`);
    expectEnvelope(res, 404, 'invalid_request_error');
    expect(res.body.error.message).toContain('exists in live mode');
    const patched = await stack.api(merchant.testKey, `/v1/notification-channels/${live.body.id}`, {
      method: 'PATCH',
      json: { status: 'disabled' },
    });
    expect(patched.status).toBe(404);
    const list = await stack.api(merchant.testKey, '/v1/notification-channels?limit=100');
    expect(list.body.data.map((c: { id: string }) => c.id)).not.toContain(live.body.id);
  });

  test("another merchant's object is a plain 404", async () => {
    const other = await stack.merchant('Other');
    const mine = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: channelBody,
    });
    const res = await stack.api(other.testKey, `/v1/notification-channels/${mine.body.id}`);
    expectEnvelope(res, 404, 'invalid_request_error');
    expect(res.body.error.message).not.toContain('exists in');
    expect(
      (await stack.api(other.testKey, `/v1/notification-channels/${mine.body.id}`, { method: 'DELETE' }))
        .status,
    ).toBe(404);
  });

  test('live channels need https and a public host; test channels may use localhost', async () => {
    for (const url of [
      'http://93.184.215.14/hook',
      'https://127.0.0.1/hook',
      'https://10.0.0.8/x',
      'https://169.254.169.254/latest',
      'https://localhost/x',
      'https://[::1]/x',
    ]) {
      const res = await stack.api(merchant.liveKey, '/v1/notification-channels', {
        method: 'POST',
        json: { ...channelBody, config: { url } },
      });
      expectEnvelope(res, 400, 'invalid_request_error');
      expect(res.body.error.param).toBe('config.url');
    }
  });
});

describe('idempotency', () => {
  test('the same key replays the first status and body byte for byte', async () => {
    const headers = { 'idempotency-key': 'create-1' };
    const first = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: channelBody,
      headers,
    });
    const second = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: channelBody,
      headers,
    });
    expect(second.status).toBe(first.status);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const count = await stack
      .knex('notification_channels')
      .where({ id: first.body.id })
      .count<{ count: number }[]>('* as count');
    expect(count[0]!.count).toBe(1);
  });

  test('an error response is replayed too', async () => {
    const headers = { 'idempotency-key': 'bad-1' };
    const first = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, type: 'pager' },
      headers,
    });
    const second = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, type: 'pager' },
      headers,
    });
    expect(first.status).toBe(400);
    expect(second.text).toBe(first.text);
  });

  test('the same key with other parameters is 400 idempotency_error', async () => {
    const headers = { 'idempotency-key': 'create-2' };
    await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: channelBody,
      headers,
    });
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, description: 'other' },
      headers,
    });
    expectEnvelope(res, 400, 'idempotency_error');
  });

  test('a key still in flight is 409, and changes nothing', async () => {
    const { requestHash } = await import('../../services/idempotency');
    await stack.knex('idempotency_keys').insert({
      merchant_id: merchant.id,
      livemode: false,
      key: 'inflight-1',
      method: 'POST',
      path: '/v1/notification-channels',
      request_hash: requestHash('POST', '/v1/notification-channels', channelBody),
      state: 'in_flight',
    });
    const before = await stack.knex('notification_channels').count<{ count: number }[]>('* as count');
    const res = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: channelBody,
      headers: { 'idempotency-key': 'inflight-1' },
    });
    expectEnvelope(res, 409, 'idempotency_error');
    const after = await stack.knex('notification_channels').count<{ count: number }[]>('* as count');
    expect(after[0]!.count).toBe(before[0]!.count);
  });

  test('concurrent requests with one key create one object', async () => {
    const headers = { 'idempotency-key': 'race-1' };
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        stack.api(merchant.testKey, '/v1/notification-channels', {
          method: 'POST',
          json: channelBody,
          headers,
        }),
      ),
    );
    for (const r of results) expect([200, 409]).toContain(r.status);
    const created = new Set(results.filter((r) => r.status === 200).map((r) => r.body.id));
    expect(created.size).toBe(1);
  });

  test('keys are per environment: the same key with a live key is a new request', async () => {
    const headers = { 'idempotency-key': 'both-modes' };
    const t = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: channelBody,
      headers,
    });
    const l = await stack.api(merchant.liveKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, config: { url: 'https://93.184.215.14/h' } },
      headers,
    });
    expect(t.status).toBe(200);
    expect(l.status).toBe(200);
    expect(l.body.livemode).toBe(true);
  });
});

describe('events ledger', () => {
  test('lists oldest first with limit, after and starting_after', async () => {
    const m = await stack.merchant('Ledger');
    const { createEventRepository } = await import('../../db/events');
    const repo = createEventRepository(stack.knex);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const { event } = await repo.record(
        { merchantId: m.id, livemode: false },
        { type: 'claim.paid', data: { id: `clm_${i}` } },
      );
      ids.push(event.id);
      await new Promise((r) => setTimeout(r, 3));
    }
    await repo.record({ merchantId: m.id, livemode: true }, { type: 'claim.paid', data: { id: 'clm_live' } });

    const all = await stack.api(m.testKey, '/v1/events');
    expect(all.body).toMatchObject({ object: 'list', has_more: false, url: '/v1/events' });
    expect(all.body.data.map((e: { id: string }) => e.id)).toEqual(ids);
    expect(all.body.data[0]).toMatchObject({
      object: 'event',
      type: 'claim.paid',
      environment: 'test',
      merchant_id: m.id,
    });

    const page = await stack.api(m.testKey, '/v1/events?limit=2');
    expect(page.body.has_more).toBe(true);
    expect(page.body.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));

    const next = await stack.api(m.testKey, `/v1/events?limit=2&starting_after=${ids[1]}`);
    expect(next.body.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(2, 4));

    const after = await stack.api(
      m.testKey,
      `/v1/events?after=${encodeURIComponent(all.body.data[2].created_at)}`,
    );
    expect(after.body.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(3));

    const live = await stack.api(m.liveKey, '/v1/events');
    expect(live.body.data).toHaveLength(1);
    expect(live.body.data[0].environment).toBe('live');
  });
});

describe('NUL characters', () => {
  test('are refused in the path, the query and the body, never a 500', async () => {
    const inPath = await stack.api(merchant.testKey, '/v1/notification-channels/nc_%00x');
    expectEnvelope(inPath, 404, 'invalid_request_error');
    expect(inPath.body.error.param).toBe('id');
    const inQuery = await stack.api(merchant.testKey, '/v1/notification-channels?starting_after=nc_%00');
    expectEnvelope(inQuery, 400, 'invalid_request_error');
    expect(inQuery.body.error.param).toBe('starting_after');
    const inBody = await stack.api(merchant.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { ...channelBody, metadata: { note: 'a\u0000b' } },
    });
    expectEnvelope(inBody, 400, 'invalid_request_error');
    expect(inBody.body.error.param).toBe('metadata.note');
  });
});
