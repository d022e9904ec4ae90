import type { Knex } from '../../db/knex';
import { createUserRepository } from '../../db/users';
import { hashPassword, type ScryptCost } from '../../domain/password';
import { randomBase62 } from '../../domain/ids';
import type { MemberRole } from '../../domain/member-roles';

export interface TestUser {
  id: string;
  email: string;
  password: string;
}

/**
 * The scrypt cost of the users made here, not of anyone signing up: a hash or a sign-in at the real
 * cost takes 0.22 CPU-s, and the suite makes and signs in hundreds of these users to reach the page
 * under test. Sign-up, invitation and password-reset tests go through the real path at the real
 * cost; test/unit/password-and-codes.test.ts holds that cost.
 */
const FIXTURE_COST: ScryptCost = { N: 2 ** 10, r: 8, p: 1 };

/** A dashboard user of the merchant, with a random password; the owner unless `role` says otherwise. */
export async function createMerchantUser(
  knex: Knex,
  merchantId: string,
  role: MemberRole = 'owner',
): Promise<TestUser> {
  const email = `user-${randomBase62(8).toLowerCase()}@example.test`;
  const password = `pw-${randomBase62(20)}`;
  const row = await createUserRepository(knex).create({
    kind: 'merchant',
    merchantId,
    email,
    passwordHash: await hashPassword(password, FIXTURE_COST),
    role,
  });
  return { id: row.id, email, password };
}

/** An operator with a dashboard password and an API token. */
export async function createOperator(knex: Knex): Promise<TestUser & { token: string }> {
  const email = `ops-${randomBase62(8).toLowerCase()}@example.test`;
  const password = `pw-${randomBase62(20)}`;
  const users = createUserRepository(knex);
  const row = await users.create({
    kind: 'operator',
    merchantId: null,
    email,
    passwordHash: await hashPassword(password, FIXTURE_COST),
  });
  const { token } = await users.createOperatorToken(row.id);
  return { id: row.id, email, password, token };
}

/** A response of the web client: status, final headers and the page text. */
export interface WebResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/**
 * A cookie-keeping client for the HTML dashboard: follows no redirects by itself, so tests see
 * each 303, and reads the CSRF token from the last page it fetched.
 */
export class WebClient {
  readonly cookies = new Map<string, string>();
  last: WebResponse | null = null;

  constructor(readonly baseUrl: string) {}

  private async request(path: string, init: RequestInit = {}): Promise<WebResponse> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0)
      headers.set('cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    const res = await fetch(this.baseUrl + path, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (attrs.some((a) => /max-age=0/i.test(a.trim())) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const out = {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get('location'),
    };
    this.last = out;
    return out;
  }

  get(path: string): Promise<WebResponse> {
    return this.request(path);
  }

  /** Posts a form; `_csrf` is taken from the last page unless given. */
  post(
    path: string,
    form: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<WebResponse> {
    const body = new URLSearchParams({ ...(this.csrf() !== null && { _csrf: this.csrf()! }), ...form });
    return this.request(path, { method: 'POST', body, headers });
  }

  /** The `_csrf` value of the last page fetched. */
  csrf(): string | null {
    return /name="_csrf" value="([^"]+)"/.exec(this.last?.text ?? '')?.[1] ?? null;
  }

  async signIn(email: string, password: string): Promise<WebResponse> {
    await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { email, password });
  }
}
