import { signNotification, verifyNotification } from '../../adapters/acquirers/acquirer-notifications';
import { AcquirerSignatureError } from '../../adapters/acquirers/card-acquirer';

// Decision 0155: the acquirer's dispute notifications verify only with the shared secret, fresh,
// and only when they are dispute notifications.

const SECRET = 'a-notification-secret-of-24+';
const notification = {
  id: 'ntf_1',
  type: 'dispute.created',
  dispute: {
    id: 'chb_1',
    authorization: 'auth_1',
    amount: 4000,
    reason: 'fraudulent',
    status: 'needs_response',
    evidence_due_by: '2026-12-02T12:00:00.000Z',
    created_at: '2026-11-25T12:00:00.000Z',
  },
};
const body = JSON.stringify(notification);
const now = new Date('2026-11-25T12:00:10Z');

test('a notification signed with the secret verifies and parses', () => {
  expect(verifyNotification(SECRET, Buffer.from(body), signNotification(SECRET, body, now), now)).toEqual(
    notification,
  );
});

test.each([
  ['no header', () => undefined, body],
  ['another secret', () => signNotification('another-secret-of-24-chars!!', body, now), body],
  ['a changed body', () => signNotification(SECRET, body, now), body.replace('4000', '40000')],
  [
    'a signature six minutes old',
    () => signNotification(SECRET, body, new Date(now.getTime() - 360_000)),
    body,
  ],
  ['a malformed header', () => 't=abc,v1=zz', body],
  [
    'a signed body that is not a dispute notification',
    () => signNotification(SECRET, JSON.stringify({ ...notification, type: 'charge.succeeded' }), now),
    JSON.stringify({ ...notification, type: 'charge.succeeded' }),
  ],
  [
    'a dispute without an amount',
    () =>
      signNotification(
        SECRET,
        JSON.stringify({ ...notification, dispute: { ...notification.dispute, amount: 0 } }),
        now,
      ),
    JSON.stringify({ ...notification, dispute: { ...notification.dispute, amount: 0 } }),
  ],
])('refused: %s', (_name, header, text) => {
  expect(() => verifyNotification(SECRET, Buffer.from(text), header(), now)).toThrow(AcquirerSignatureError);
});
