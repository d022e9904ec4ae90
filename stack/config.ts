import path from 'node:path';
import { z } from 'zod';
import ipaddr from 'ipaddr.js';
import { parseSecretsKey } from '../domain/secret-box';
import { leastDeviceTokenLimit, parseRateLimit } from '../domain/rate-limit';

/** A rate limit as configured (`100/1s`, `10/1m`, `off`; decision 0110). */
const zRateLimit = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx) => {
      try {
        return parseRateLimit(text);
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message });
        return z.NEVER;
      }
    });

const TRUST_PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

const ConfigSchema = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().default('127.0.0.1'),
    /** PostgreSQL URL; unset means the embedded server under DATA_DIR. */
    DATABASE_URL: z.string().url().optional(),
    /** Temporal frontend host:port; unset means a dev server started under DATA_DIR. */
    TEMPORAL_ADDRESS: z.string().min(1).optional(),
    TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
    TEMPORAL_TASK_QUEUE: z.string().min(1).default('skil'),
    TEMPORAL_PORT: z.coerce.number().int().min(1).max(65535).default(7233),
    TEMPORAL_UI_PORT: z.coerce.number().int().min(1).max(65535).default(8233),
    /**
     * TLS to the Temporal frontend (a self-hosted cluster with mTLS, or Temporal Cloud; decision
     * 0144): `true` turns it on with the system's CAs; the paths below add a server CA, a client
     * certificate pair and the server name to expect. Any of them, or an API key, implies TLS.
     */
    TEMPORAL_TLS: z.enum(['true', 'false']).default('false'),
    TEMPORAL_TLS_CA_PATH: z.string().min(1).optional(),
    TEMPORAL_TLS_CERT_PATH: z.string().min(1).optional(),
    TEMPORAL_TLS_KEY_PATH: z.string().min(1).optional(),
    TEMPORAL_TLS_SERVER_NAME: z.string().min(1).optional(),
    /** Temporal Cloud API key, sent as a bearer token on every call. */
    TEMPORAL_API_KEY: z.string().min(1).optional(),
    /** Port of the worker's Prometheus `/metrics` (on HOST); unset: not served. */
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** PostgreSQL connections per process (API or worker). */
    DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
    /**
     * PostgreSQL `statement_timeout` of every connection, in ms; 0: none. Long bank-file and
     * settlement statements run in the worker: give the worker a larger value than the API.
     */
    DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).default(0),
    /** How long a request waits for a free pooled connection before the API answers 503, in ms. */
    DATABASE_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(10_000),
    /** Port of the embedded PostgreSQL, when DATABASE_URL is unset. */
    EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
    DATA_DIR: z.string().min(1).default('.data'),
    /** Where clients reach the API; used in documentation links and URLs the API hands out. */
    PUBLIC_BASE_URL: z.string().url().optional(),
    /** Fail any response that differs from its route's declared schema (for test stacks). */
    CHECK_RESPONSES: z.enum(['true', 'false']).default('false'),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * `auto`: pretty lines when stdout is a terminal and NODE_ENV is not `production`, JSON
     * otherwise (decision 0206); `json` or `pretty` force one.
     */
    LOG_FORMAT: z.enum(['auto', 'json', 'pretty']).default('auto'),
    /** Port of the simulated bank (test environment's claims API and payer online bank); 0 picks a free one. */
    SIMULATED_BANK_PORT: z.coerce.number().int().min(0).max(65535).default(3010),
    /** Base URL of the bank's IOBWS claims API (npm start sets the simulated bank's); unset: no claims bank. */
    SIMULATED_BANK_URL: z.string().url().optional(),
    /**
     * The live environment's claims bank (IOBWS 3.1, decision 0177): base URL, OAuth2 client
     * credentials (the secret inline or, better, in a file) and the device certificate for mutual
     * TLS, with the CA that signed the bank's certificate. Test mode keeps SIMULATED_BANK_URL; live
     * claims never go to the simulated bank. Unset URL: live claims wait for a live connection.
     */
    BANK_CLAIMS_LIVE_URL: z.string().url().optional(),
    /** The bank's OAuth2 token endpoint; default `${BANK_CLAIMS_LIVE_URL}/oauth2/token`. */
    BANK_CLAIMS_LIVE_TOKEN_URL: z.string().url().optional(),
    BANK_CLAIMS_LIVE_CLIENT_ID: z.string().min(1).optional(),
    BANK_CLAIMS_LIVE_CLIENT_SECRET: z.string().min(1).optional(),
    /** A file holding the client secret (a mounted secret); trailing newlines are ignored. */
    BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH: z.string().min(1).optional(),
    /** OAuth2 scopes asked for; default `claims.read claims.write`. */
    BANK_CLAIMS_LIVE_SCOPE: z.string().min(1).optional(),
    BANK_CLAIMS_LIVE_TLS_CERT_PATH: z.string().min(1).optional(),
    BANK_CLAIMS_LIVE_TLS_KEY_PATH: z.string().min(1).optional(),
    BANK_CLAIMS_LIVE_TLS_CA_PATH: z.string().min(1).optional(),
    /** Port of the simulated bank's SFTP file exchange (npm start); 0 picks a free one. */
    SIMULATED_BANK_SFTP_PORT: z.coerce.number().int().min(0).max(65535).default(3022),
    /** Port of the simulated card acquirer (test environment, started by npm start); 0 picks a free one. */
    SIMULATED_ACQUIRER_PORT: z.coerce.number().int().min(0).max(65535).default(3020),
    /**
     * Base URL of the card acquirer the API and the worker charge through (npm start sets the
     * simulated acquirer's, decision 0102); unset: the API and the worker refuse to start.
     */
    SIMULATED_ACQUIRER_URL: z.string().url().optional(),
    /**
     * The secret the card acquirer signs its dispute notifications with (decision 0155); `npm start`
     * makes one for the simulated acquirer. Unset: notifications are refused.
     */
    ACQUIRER_NOTIFICATION_SECRET: z.string().min(24).optional(),
    /** Where a separately run simulated acquirer posts dispute notifications (the API's `/acquirer/notifications`). */
    SIMULATED_ACQUIRER_NOTIFY_URL: z.string().url().optional(),
    /**
     * The live card acquirer (decision 0163): Teya's e-commerce payments API, its Teya ID token
     * endpoint, the platform store's API credentials and store id. All four of the URL, client id,
     * secret and store are set together; unset: live card payments answer 503. The secret comes from
     * here (the environment or its secret store), never from the database.
     */
    TEYA_API_URL: z.string().url().optional(),
    TEYA_TOKEN_URL: z.string().url().default('https://id.teya.com/oauth/v2/oauth-token'),
    TEYA_CLIENT_ID: z.string().min(1).optional(),
    TEYA_CLIENT_SECRET: z.string().min(1).optional(),
    TEYA_STORE_ID: z.string().uuid().optional(),
    /** Wallets the Teya store is enabled for, comma-separated; Teya's public API takes Apple Pay only. */
    TEYA_WALLETS: z
      .string()
      .default('')
      .transform((text, ctx) => {
        const list = text
          .split(',')
          .map((w) => w.trim())
          .filter(Boolean);
        const bad = list.find((w) => w !== 'apple_pay');
        if (bad !== undefined) {
          ctx.addIssue({ code: 'custom', message: `${bad}: Teya's public API takes apple_pay only` });
          return z.NEVER;
        }
        return list as 'apple_pay'[];
      }),
    /**
     * The national company registry's REST interface (Skatturinn's fyrirtækjaskrá over X-Road,
     * decision 0166): the X-Road security server's path to it (`https://<security server>/r1/<provider id>`), and this
     * service's X-Road client id (`IS/COM/<kennitala>/<subsystem>`). Unset URL: live registry lookups
     * answer 503.
     */
    REGISTRY_URL: z.string().url().optional(),
    REGISTRY_XROAD_CLIENT: z.string().min(1).optional(),
    /** Port of the simulated pickup-point carriers (test environment, started by npm start); 0: any. */
    SIMULATED_CARRIERS_PORT: z.coerce.number().int().min(0).max(65535).default(3040),
    /** Base URL of the simulated carriers test mode books with (npm start sets it); unset: no carriers. */
    SIMULATED_CARRIERS_URL: z.string().url().optional(),
    /** Port of the simulated Peppol access point (test environment, started by npm start); 0: any. */
    SIMULATED_ACCESS_POINT_PORT: z.coerce.number().int().min(0).max(65535).default(3050),
    /**
     * Base URL of the access point test mode sends e-invoices through (decision 0215; npm start sets
     * the simulated one's); unset: test-mode Peppol deliveries fail for want of an access point.
     */
    SIMULATED_ACCESS_POINT_URL: z.string().url().optional(),
    /** Port of the simulated collector (test environment, started by npm start); 0: any. */
    SIMULATED_COLLECTOR_PORT: z.coerce.number().int().min(0).max(65535).default(3060),
    /**
     * Base URL of the collector test mode hands overdue kröfur to (decisions 0247, 0248; npm start
     * sets the simulated one's); unset: test-mode hand-offs wait for one.
     */
    SIMULATED_COLLECTOR_URL: z.string().url().optional(),
    /**
     * The live environment's licensed collector (decision 0248): base URL of its API in the collector
     * adapter's shape and the bearer token Skil calls it with; unset: live hand-offs wait for one.
     */
    COLLECTOR_LIVE_URL: z.string().url().optional(),
    COLLECTOR_LIVE_TOKEN: z.string().min(16).optional(),
    /** Added latency of the simulated card acquirer's answers (test environment), in ms. */
    SIMULATED_ACQUIRER_LATENCY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
    /**
     * The bank file connection (SFTP) of the service's collection account; unset host: none. `npm start`
     * points it at the simulated bank's SFTP server (test environment).
     */
    BANK_CONNECTION_ID: z
      .string()
      .regex(/^[a-z0-9-]{1,40}$/)
      .default('simulated'),
    /** Whether the connection carries live money (a real bank) or test money (the simulated bank). */
    BANK_LIVEMODE: z.enum(['true', 'false']).default('false'),
    BANK_SFTP_HOST: z.string().min(1).optional(),
    BANK_SFTP_PORT: z.coerce.number().int().min(1).max(65535).default(22),
    BANK_SFTP_USERNAME: z.string().min(1).default('skil'),
    BANK_SFTP_PASSWORD: z.string().min(1).optional(),
    BANK_SFTP_PRIVATE_KEY_PATH: z.string().min(1).optional(),
    /** The bank's pinned host key, `SHA256:…` as OpenSSH prints it. */
    BANK_SFTP_HOST_KEY_SHA256: z
      .string()
      .regex(/^SHA256:[A-Za-z0-9+/]{43}$/)
      .optional(),
    BANK_SFTP_INBOX: z.string().min(1).default('/inbox'),
    BANK_SFTP_ARCHIVE: z.string().min(1).default('/archive'),
    BANK_SFTP_OUTBOX: z.string().min(1).default('/outbox'),
    /** The collection account (4-2-6, 12 digits) and its owner's kennitala, as the bank files name them. */
    BANK_COLLECTION_ACCOUNT: z
      .string()
      .regex(/^[0-9]{12}$/)
      .default('013326000133'),
    BANK_COLLECTION_KENNITALA: z
      .string()
      .regex(/^[0-9]{10}$/)
      .default('5012131870'),
    /**
     * Worker threads that parse bank files next to the activity's thread. 0 (the default) on small
     * machines: on 2 cores they compete with PostgreSQL and gain nothing end to end (bench/RESULTS.md).
     */
    BANK_SYNC_PARSE_WORKERS: z.coerce.number().int().min(0).max(16).default(0),
    /**
     * Raw bank files in an S3-compatible object store instead of PostgreSQL (decision 0179): the
     * endpoint (path-style addressing), bucket, region, keys and a key prefix. Unset endpoint:
     * PostgreSQL (decision 0145).
     */
    RAW_FILES_S3_ENDPOINT: z.string().url().optional(),
    RAW_FILES_S3_BUCKET: z.string().min(3).max(63).optional(),
    RAW_FILES_S3_REGION: z.string().min(1).default('us-east-1'),
    RAW_FILES_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    RAW_FILES_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    RAW_FILES_S3_PREFIX: z.string().default('raw-bank-files/'),
    /** Settlement runs with a net at or under this many ISK are approved without an operator; 0 = off. */
    SETTLEMENT_AUTO_APPROVE_MAX_NET: z.coerce.number().int().min(0).max(999_999_999_999).default(0),
    /**
     * CIDR ranges, comma-separated, that notification channels of either mode may reach although
     * they are private (decision 0111): e.g. `10.20.0.0/16,fd12:3456::/32`. Empty: none.
     */
    WEBHOOK_ALLOW_PRIVATE_RANGES: z
      .string()
      .default('')
      .transform((s) =>
        s
          .split(',')
          .map((r) => r.trim())
          .filter((r) => r !== ''),
      )
      .refine((list) => list.every((r) => ipaddr.isValidCIDR(r)), 'must be CIDR ranges, comma-separated'),
    /**
     * Whether test-mode notification channels may reach loopback addresses (decision 0225): `true`
     * for local development (`npm start` sets it), `false` (the default, the container image, the
     * cluster) wherever other services listen on the host.
     */
    WEBHOOK_ALLOW_LOOPBACK: z.enum(['true', 'false']).default('false'),
    /**
     * A notification channel is disabled when every delivery that ended in the last
     * WEBHOOK_DISABLE_WINDOW_HOURS failed and at least WEBHOOK_DISABLE_AFTER_FAILURES did (decision
     * 0112); 0 failures: never.
     */
    WEBHOOK_DISABLE_AFTER_FAILURES: z.coerce.number().int().min(0).max(1_000_000).default(20),
    WEBHOOK_DISABLE_WINDOW_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 365)
      .default(72),
    /**
     * The key that seals webhook signing secrets and idempotent replays at rest (AES-256-GCM; decision
     * 0112): 64 hex digits or base64 of 32 bytes. `npm start` generates one in DATA_DIR/secrets.key
     * when unset; `npm run api` and `npm run worker` need it set.
     */
    SECRETS_ENCRYPTION_KEY: z
      .string()
      .optional()
      .refine((k) => {
        if (k === undefined) return true;
        try {
          parseSecretsKey(k);
          return true;
        } catch {
          return false;
        }
      }, 'must be 32 bytes: 64 hex digits, or base64 (44 characters)'),
    /**
     * Rate limits (decision 0110), each `<requests>/<n>s|m|h` or `off`: per API key in live and in
     * test mode, and per client address on device authorization, the device token poll, dashboard
     * sign-in and the pages. /health, /ready and /metrics are never limited.
     */
    RATE_LIMIT_API_LIVE: zRateLimit('100/1s'),
    RATE_LIMIT_API_TEST: zRateLimit('25/1s'),
    RATE_LIMIT_DEVICE_AUTHORIZE: zRateLimit('10/1m'),
    RATE_LIMIT_DEVICE_TOKEN: zRateLimit('120/1m'),
    RATE_LIMIT_SIGN_IN: zRateLimit('10/1m'),
    RATE_LIMIT_PAGES: zRateLimit('300/1m'),
    /**
     * Failed authentications (API keys, till credentials) per client address in a window; past it,
     * a key that has not authenticated from that address in the last hour is answered 429 without
     * being looked up until the window ends (decision 0226).
     */
    RATE_LIMIT_API_KEY_FAILURES: zRateLimit('20/10m'),
    /**
     * Which proxies' X-Forwarded-For names the client (Express's `trust proxy`): `false` (default:
     * the peer is the client), a number of hops, or addresses, CIDR ranges and the names loopback,
     * linklocal, uniquelocal, comma-separated. `true` (trust anyone) is refused.
     */
    TRUST_PROXY: z
      .string()
      .default('false')
      .transform((text, ctx): false | number | string[] => {
        const t = text.trim();
        if (t === '' || t === 'false') return false;
        if (/^\d{1,2}$/.test(t)) return Number(t);
        const list = t.split(',').map((s) => s.trim());
        const bad = list.find(
          (s) => !TRUST_PROXY_NAMES.has(s) && !ipaddr.isValid(s) && !ipaddr.isValidCIDR(s),
        );
        if (bad !== undefined) {
          ctx.addIssue({
            code: 'custom',
            message: `${bad === 'true' ? 'true would let any client name its own address' : `${bad} is not an address, a CIDR range or loopback, linklocal, uniquelocal`}`,
          });
          return z.NEVER;
        }
        return list;
      }),
    /**
     * The mail server the service sends through (verification, password reset, invitations,
     * receipts): nodemailer's `smtp://user:pass@host:port` or `smtps://…` (decision 0114). Unset:
     * `npm start` runs the local mail catcher and uses it; `npm run api` alone sends no mail.
     */
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/\S+$/, 'must be smtp://… or smtps://…')
      .optional(),
    /** The From header of the service's mail. */
    MAIL_FROM: z.string().min(3).max(200).default('Skil <no-reply@skil.test>'),
    /** The local mail catcher `npm start` runs when SMTP_URL is unset: its SMTP and page ports (0: any). */
    MAIL_CATCHER_SMTP_PORT: z.coerce.number().int().min(0).max(65535).default(3025),
    MAIL_CATCHER_PORT: z.coerce.number().int().min(0).max(65535).default(3030),
    /** Sign-ups per client address (`<n>/<window>` or `off`; decision 0115). */
    RATE_LIMIT_SIGN_UP: zRateLimit('5/1h'),
    /** How often the device flow lets a CLI poll for its key (RFC 8628 `interval`), in seconds. */
    DEVICE_POLL_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(60).default(5),
    /** Largest request body accepted, in bytes. */
    BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(256 * 1024),
  })
  .superRefine((c, ctx) => {
    // A client certificate is a pair: one half alone is a mistake, not a choice.
    if ((c.TEMPORAL_TLS_CERT_PATH === undefined) !== (c.TEMPORAL_TLS_KEY_PATH === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [c.TEMPORAL_TLS_CERT_PATH === undefined ? 'TEMPORAL_TLS_CERT_PATH' : 'TEMPORAL_TLS_KEY_PATH'],
        message:
          'TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH are set together (the client certificate pair)',
      });
    }
    // The live acquirer's settings are one set: half of them is a mistake, not a choice.
    const teya = ['TEYA_API_URL', 'TEYA_CLIENT_ID', 'TEYA_CLIENT_SECRET', 'TEYA_STORE_ID'] as const;
    const teyaSet = teya.filter((k) => c[k] !== undefined);
    if (teyaSet.length > 0 && teyaSet.length < teya.length) {
      ctx.addIssue({
        code: 'custom',
        path: [teya.find((k) => c[k] === undefined)!],
        message: `${teya.join(', ')} are set together (the live card acquirer)`,
      });
    }
    // The live collector's URL and token are one setting (decision 0248).
    if ((c.COLLECTOR_LIVE_URL === undefined) !== (c.COLLECTOR_LIVE_TOKEN === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [c.COLLECTOR_LIVE_URL === undefined ? 'COLLECTOR_LIVE_URL' : 'COLLECTOR_LIVE_TOKEN'],
        message: 'COLLECTOR_LIVE_URL and COLLECTOR_LIVE_TOKEN are set together (the live collector)',
      });
    }
    if (c.RAW_FILES_S3_ENDPOINT !== undefined)
      for (const key of [
        'RAW_FILES_S3_BUCKET',
        'RAW_FILES_S3_ACCESS_KEY_ID',
        'RAW_FILES_S3_SECRET_ACCESS_KEY',
      ] as const)
        if (c[key] === undefined)
          ctx.addIssue({ code: 'custom', path: [key], message: 'is required with RAW_FILES_S3_ENDPOINT' });
    liveClaimsBankProblems(c).forEach((p) =>
      ctx.addIssue({ code: 'custom', path: [p.key], message: p.message }),
    );
    // A CLI polling at the interval the device flow hands out is never refused (decision 0110).
    const token = c.RATE_LIMIT_DEVICE_TOKEN;
    if (token && token.max < leastDeviceTokenLimit(c.DEVICE_POLL_INTERVAL_SECONDS, token.windowMs)) {
      ctx.addIssue({
        code: 'custom',
        path: ['RATE_LIMIT_DEVICE_TOKEN'],
        message: `must allow at least ${leastDeviceTokenLimit(c.DEVICE_POLL_INTERVAL_SECONDS, token.windowMs)} requests per window, so that a CLI polling every ${c.DEVICE_POLL_INTERVAL_SECONDS} s (DEVICE_POLL_INTERVAL_SECONDS) is never refused`,
      });
    }
  });

/** What is wrong with the live claims bank's settings (decision 0177); empty when none. */
function liveClaimsBankProblems(c: {
  BANK_CLAIMS_LIVE_URL?: string | undefined;
  BANK_CLAIMS_LIVE_CLIENT_ID?: string | undefined;
  BANK_CLAIMS_LIVE_CLIENT_SECRET?: string | undefined;
  BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH?: string | undefined;
  BANK_CLAIMS_LIVE_TLS_CERT_PATH?: string | undefined;
  BANK_CLAIMS_LIVE_TLS_KEY_PATH?: string | undefined;
}): { key: string; message: string }[] {
  const problems: { key: string; message: string }[] = [];
  const cert = c.BANK_CLAIMS_LIVE_TLS_CERT_PATH !== undefined;
  if (cert !== (c.BANK_CLAIMS_LIVE_TLS_KEY_PATH !== undefined))
    problems.push({
      key: cert ? 'BANK_CLAIMS_LIVE_TLS_KEY_PATH' : 'BANK_CLAIMS_LIVE_TLS_CERT_PATH',
      message:
        'BANK_CLAIMS_LIVE_TLS_CERT_PATH and BANK_CLAIMS_LIVE_TLS_KEY_PATH are set together (the device certificate pair)',
    });
  if (c.BANK_CLAIMS_LIVE_CLIENT_SECRET !== undefined && c.BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH !== undefined)
    problems.push({
      key: 'BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH',
      message: 'set BANK_CLAIMS_LIVE_CLIENT_SECRET or BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH, not both',
    });
  if (c.BANK_CLAIMS_LIVE_URL === undefined) return problems;
  // Live money travels only over TLS.
  if (!c.BANK_CLAIMS_LIVE_URL.startsWith('https://'))
    problems.push({ key: 'BANK_CLAIMS_LIVE_URL', message: 'must be https://' });
  if (c.BANK_CLAIMS_LIVE_CLIENT_ID === undefined)
    problems.push({ key: 'BANK_CLAIMS_LIVE_CLIENT_ID', message: 'is required with BANK_CLAIMS_LIVE_URL' });
  // A client authenticates with a secret or with its certificate (RFC 8705 tls_client_auth).
  if (
    c.BANK_CLAIMS_LIVE_CLIENT_SECRET === undefined &&
    c.BANK_CLAIMS_LIVE_CLIENT_SECRET_PATH === undefined &&
    !cert
  )
    problems.push({
      key: 'BANK_CLAIMS_LIVE_CLIENT_SECRET',
      message:
        'the live bank needs a client secret (BANK_CLAIMS_LIVE_CLIENT_SECRET or _PATH) or a device certificate (BANK_CLAIMS_LIVE_TLS_CERT_PATH)',
    });
  return problems;
}

export type Config = z.infer<typeof ConfigSchema> & { dataDir: string; publicBaseUrl: string };

/** The secrets key, which the API and the worker cannot run without (decision 0112). */
export function requireSecretsKey(config: Config): string {
  if (config.SECRETS_ENCRYPTION_KEY === undefined) {
    throw new Error(
      'set SECRETS_ENCRYPTION_KEY (64 hex digits); `npm start` generates one in DATA_DIR/secrets.key and passes it on',
    );
  }
  return config.SECRETS_ENCRYPTION_KEY;
}

/** Reads the environment once at start-up and fails fast, naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  const c = parsed.data;
  return {
    ...c,
    dataDir: path.resolve(c.DATA_DIR),
    publicBaseUrl: c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`,
  };
}
