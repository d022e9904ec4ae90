import { randomFillSync } from 'node:crypto';

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
  auditEntry: 'aud',
  payoutAccountChange: 'pac',
  collectionStep: 'ccs',
} as const;

export type IdPrefix = (typeof ID_PREFIX)[keyof typeof ID_PREFIX];

// Bytes from the system's CSPRNG, drawn a block at a time and each handed out once (as Node's own
// randomUUID does): a call into it per id was a fortieth of the worker's CPU on a renewal day.
const entropy = Buffer.alloc(4096);
let entropyUsed = entropy.length;

function randomByte(): number {
  if (entropyUsed === entropy.length) {
    randomFillSync(entropy);
    entropyUsed = 0;
  }
  return entropy[entropyUsed++]!;
}

/** Random base62 text of `length` characters, unbiased (rejection sampling over bytes). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    // 248 = 62 * 4: bytes at or above it would favour the first characters.
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

/** Characters of an id's creation time: 62^8 milliseconds is about 6,900 years from 1970. */
export const ID_TIME_CHARS = 8;

/** `ms` as fixed-width base62, most significant first, so ids sort by creation time in byte order. */
export function base62Time(ms: number): string {
  let out = '';
  let rest = Math.floor(ms);
  for (let i = 0; i < ID_TIME_CHARS; i++) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

/**
 * A new object id such as `evt_0Vd3kQ2x…`: prefix, underscore, 24 base62 characters — the creation
 * millisecond (8) then randomness (16, ~95 bits). Time first because a day's renewals insert
 * millions of rows: with random keys each insert lands on a random page of every primary-key index,
 * so the whole index must stay in memory and the cost per row grows with the table; time-ordered
 * keys append at the index's right edge (decision 0192). Ids are names, never secrets: tokens use
 * randomBase62 alone.
 */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62Time(Date.now())}${randomBase62(24 - ID_TIME_CHARS)}`;
}
