import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Object id prefixes (architecture, "Identifiers"). */
export const ID_PREFIX = {
  merchant: 'acct',
  apiKey: 'key',
  event: 'evt',
  notificationChannel: 'nc',
  webhookDelivery: 'whd',
  request: 'req',
  user: 'usr',
  session: 'sess',
  operatorToken: 'optk',
  deviceAuthorization: 'da',
  product: 'prod',
  price: 'price',
  productVariant: 'var',
  customer: 'cus',
  coupon: 'coupon',
  promotionCode: 'promo',
  couponRedemption: 'rdm',
  testClock: 'clock',
  checkoutSession: 'cs',
  lineItem: 'li',
  paymentIntent: 'pi',
  paymentMethod: 'pm',
  paymentLink: 'plink',
  refund: 're',
  dispute: 'dp',
  subscription: 'sub',
  renewal: 'rnw',
  billingPortalSession: 'bps',
  claim: 'clm',
  bankFile: 'bf',
  bankException: 'bex',
  settlementRun: 'stl',
  payout: 'po',
  invoice: 'in',
  creditNote: 'cn',
  posRegister: 'reg',
  posDevice: 'posdev',
  posStaff: 'staff',
  posTerminal: 'tmr',
  posShift: 'shift',
  posSale: 'sale',
  posRefund: 'posre',
  posDrawerEvent: 'drw',
  posZReport: 'zrep',
  delivery: 'dlv',
  platformConnection: 'pcon',
} as const;

export type IdPrefix = (typeof ID_PREFIX)[keyof typeof ID_PREFIX];

/** Random base62 text of `length` characters, unbiased (rejection sampling over bytes). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      // 248 = 62 * 4: bytes at or above it would favour the first characters.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A new object id such as `evt_3Qx…`: prefix, underscore, 24 base62 characters (~143 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}
