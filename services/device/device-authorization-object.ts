import { z } from 'zod';
import type { DeviceAuthorizationRow } from '../../db/device-authorizations';
import { formatUserCode } from '../../domain/device-codes';

/** What `POST /v1/device/authorize` answers (RFC 8628 §3.2, with the spec's field names). */
export const DeviceAuthorizationSchema = z.object({
  device_code: z.string(),
  user_code: z.string(),
  verification_url: z.string(),
  expires_in: z.number().int(),
  poll_interval: z.number().int(),
});

/** What the approved poll of `GET /v1/device/token` answers, once. */
export const DeviceTokenSchema = z.object({
  object: z.literal('device_token'),
  api_key: z.string().describe('A new test-mode secret key; returned to one poll only'),
  key_id: z.string(),
  livemode: z.literal(false),
  merchant_id: z.string(),
});

export type DeviceAuthorizationObject = z.output<typeof DeviceAuthorizationSchema>;
export type DeviceTokenObject = z.output<typeof DeviceTokenSchema>;

/** A new request: the secret device code (never stored) and the code the user types in. */
export function presentDeviceAuthorization(
  row: DeviceAuthorizationRow,
  deviceCode: string,
  opts: { publicBaseUrl: string; expiresInSeconds: number },
): DeviceAuthorizationObject {
  const userCode = formatUserCode(row.user_code);
  return {
    device_code: deviceCode,
    user_code: userCode,
    verification_url: `${opts.publicBaseUrl}/device?user_code=${userCode}`,
    expires_in: opts.expiresInSeconds,
    poll_interval: row.poll_interval,
  };
}
