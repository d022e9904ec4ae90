import { createHmac } from 'node:crypto';
import { nextAttemptAt, scaledSchedule, WEBHOOK_RETRY_DELAYS_MS } from '../../domain/webhook-schedule';
import { signWebhookBody, verifyWebhookSignature } from '../../domain/webhook-signature';
import { chatLine, toEventPayload } from '../../domain/event-payload';
import { isSubscribed } from '../../domain/event-types';
import { addressRefusal, isPublicAddress } from '../../adapters/http/url-safety';
import { assertChannelUrl } from '../../services/channels/channel-url';

describe('webhook schedule', () => {
  test('five attempts: now, then 1 min, 5 min, 30 min and 2 h after each failure', () => {
    const failedAt = new Date('2026-11-21T12:00:00.000Z');
    expect(nextAttemptAt(WEBHOOK_RETRY_DELAYS_MS, 1, failedAt)?.toISOString()).toBe(
      '2026-11-21T12:01:00.000Z',
    );
    expect(nextAttemptAt(WEBHOOK_RETRY_DELAYS_MS, 2, failedAt)?.toISOString()).toBe(
      '2026-11-21T12:05:00.000Z',
    );
    expect(nextAttemptAt(WEBHOOK_RETRY_DELAYS_MS, 3, failedAt)?.toISOString()).toBe(
      '2026-11-21T12:30:00.000Z',
    );
    expect(nextAttemptAt(WEBHOOK_RETRY_DELAYS_MS, 4, failedAt)?.toISOString()).toBe(
      '2026-11-21T14:00:00.000Z',
    );
    expect(nextAttemptAt(WEBHOOK_RETRY_DELAYS_MS, 5, failedAt)).toBeNull();
  });

  test('scaling divides every delay', () => {
    expect(scaledSchedule(1000)).toEqual([0, 60, 300, 1800, 7200]);
  });
});

describe('signature', () => {
  const secret = 'whsec_test';
  const body = '{"id":"evt_1","type":"debug.check"}';

  test('is sha256= and the lowercase hex HMAC-SHA256 of the raw body', () => {
    const expected = 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
    expect(signWebhookBody(secret, body)).toBe(expected);
    expect(signWebhookBody(secret, body)).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  test('verification rejects a missing, short, altered or foreign signature', () => {
    const good = signWebhookBody(secret, body);
    expect(verifyWebhookSignature(secret, body, good)).toBe(true);
    expect(verifyWebhookSignature(secret, body, undefined)).toBe(false);
    expect(verifyWebhookSignature(secret, body, good.slice(0, -1))).toBe(false);
    expect(verifyWebhookSignature(secret, body + ' ', good)).toBe(false);
    expect(verifyWebhookSignature('whsec_other', body, good)).toBe(false);
  });
});

describe('event payload', () => {
  const event = {
    id: 'evt_1',
    merchantId: 'acct_1',
    livemode: false,
    type: 'claim.paid',
    data: { id: 'clm_1', amount: 125000, currency: 'ISK' },
    createdAt: new Date('2026-11-21T12:00:00.123Z'),
  };

  test('has the fields of spec §6.2 in order, with ISO milliseconds', () => {
    const payload = toEventPayload(event);
    expect(Object.keys(payload)).toEqual(['id', 'type', 'created_at', 'data', 'merchant_id', 'environment']);
    expect(payload.created_at).toBe('2026-11-21T12:00:00.123Z');
    expect(payload.environment).toBe('test');
    expect(toEventPayload({ ...event, livemode: true }).environment).toBe('live');
  });

  test('a chat line names mode, type, object and amount', () => {
    expect(chatLine(toEventPayload(event))).toBe('[test] claim.paid clm_1 — 125,000 ISK (evt_1)');
  });

  test('subscriptions match by type or *', () => {
    expect(isSubscribed(['claim.paid'], 'claim.paid')).toBe(true);
    expect(isSubscribed(['claim.paid'], 'claim.created')).toBe(false);
    expect(isSubscribed(['*'], 'subscription.renewed')).toBe(true);
  });
});

describe('isPublicAddress', () => {
  test.each([
    ['93.184.215.14', true],
    ['8.8.8.8', true],
    ['2606:4700:4700::1111', true],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['::1', false],
    ['fe80::1', false],
    ['fd00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['224.0.0.1', false],
    ['not-an-ip', false],
  ])('%s → %s', (ip, expected) => {
    expect(isPublicAddress(ip)).toBe(expected);
  });
});

describe('loopback for test channels is a setting (decision 0225)', () => {
  test.each([
    ['127.0.0.1', false, true, null],
    ['::1', false, true, null],
    ['127.0.0.1', false, false, 'refused'],
    ['::ffff:127.0.0.1', false, false, 'refused'],
    ['127.0.0.1', true, true, 'refused'],
    ['10.0.0.1', false, true, 'refused'],
  ] as const)('%s, live %s, loopback allowed %s → %s', (ip, livemode, allowLoopback, verdict) => {
    const refusal = addressRefusal(ip, { livemode, allowLoopback, allowPrivateRanges: [] });
    expect(refusal === null ? null : 'refused').toBe(verdict);
  });

  test('a channel URL on loopback is refused when the setting is off, with the param named', async () => {
    await expect(assertChannelUrl('http://127.0.0.1:8080/hook', false)).rejects.toMatchObject({
      code: 'url_not_public',
      param: 'config.url',
    });
    await expect(
      assertChannelUrl('http://127.0.0.1:8080/hook', false, { allowLoopback: true }),
    ).resolves.toBeUndefined();
  });
});
