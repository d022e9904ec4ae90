import type { Browser } from 'playwright-core';
import { launchChromium, signInWithKeyboard } from '../helpers/browser';
import { startWebStack, type WebStack } from '../helpers/web-stack';
import { seriousAccessibilityFindings } from '../helpers/accessibility';
import { WebClient } from '../helpers/accounts';
import { linkIn } from '../helpers/mail';
import { randomBase62 } from '../../domain/ids';

/**
 * Issue 21 item 1, the team: an owner who signed up invites by email with a role once the owner's
 * own address is verified; the invitee accepts by the emailed link in Chromium, chooses a password
 * and signs in as a member with that role; owners change roles and remove members, and a merchant
 * never loses its last owner, not even to two owners demoting each other at once.
 */

let web: WebStack;
let browser: Browser;

beforeAll(async () => {
  [web, browser] = await Promise.all([startWebStack(), launchChromium()]);
});
afterAll(async () => {
  await browser?.close();
  await web?.stop();
});

const PASSWORD = 'team player passphrase';
const newEmail = (who: string) => `${who}-${randomBase62(8).toLowerCase()}@example.test`;

/** Signs up through the form; the client is then signed in as the new, unverified owner. */
async function signUp(): Promise<{ owner: WebClient; email: string }> {
  const owner = new WebClient(web.url);
  const email = newEmail('owner');
  await owner.get('/dashboard/sign-up');
  const res = await owner.post('/dashboard/sign-up', {
    business_name: 'Teymi ehf.',
    email,
    password: PASSWORD,
  });
  expect(res.status).toBe(200);
  return { owner, email };
}

/** The link starting with `prefix` in the newest mail to `to` that has one. */
async function mailedLink(to: string, prefix: string): Promise<string> {
  await web.mail.waitFor((m) => m.to.includes(to) && m.text.includes(prefix));
  const all = web.mail.messages().filter((m) => m.to.includes(to) && m.text.includes(prefix));
  return linkIn(all[all.length - 1]!, prefix);
}

async function verify(email: string): Promise<void> {
  const link = await mailedLink(email, `${web.url}/dashboard/verify-email?token=`);
  const c = new WebClient(web.url);
  await c.get(new URL(link).pathname + new URL(link).search);
  const token = new URL(link).searchParams.get('token')!;
  expect((await c.post('/dashboard/verify-email', { token })).status).toBe(200);
}

async function invite(owner: WebClient, email: string, role: string) {
  await owner.get('/dashboard/team');
  return owner.post('/dashboard/team/invite', { email, role });
}

async function memberId(email: string): Promise<string> {
  return (await web.knex('users').where({ email }).first()).id as string;
}

async function accept(email: string): Promise<WebClient> {
  const link = await mailedLink(email, `${web.url}/dashboard/invitation?token=`);
  const c = new WebClient(web.url);
  await c.get(new URL(link).pathname + new URL(link).search);
  const res = await c.post('/dashboard/invitation', {
    token: new URL(link).searchParams.get('token')!,
    password: PASSWORD,
  });
  expect(res.status).toBe(303);
  return c;
}

test('an unverified owner cannot invite; verified, invites; the invitee accepts in Chromium and signs in with the role', async () => {
  const { owner, email } = await signUp();
  const developer = newEmail('dev');

  const refused = await invite(owner, developer, 'developer');
  expect(refused.status).toBe(403);
  expect(refused.text).toContain('Verify your email address before inviting your team');
  expect(await web.knex('team_invitations').count('* as n').first()).toEqual({ n: 0 });
  expect(web.mail.messages().some((m) => m.to.includes(developer))).toBe(false);

  await verify(email);
  const sent = await invite(owner, developer, 'developer');
  expect(sent.status).toBe(200);
  expect(sent.text).toContain(`Invitation sent to ${developer}`);

  const link = await mailedLink(developer, `${web.url}/dashboard/invitation?token=`);
  const context = await browser.newContext({ bypassCSP: true });
  try {
    const page = await context.newPage();
    await page.route('**/*', (route) =>
      route
        .request()
        .url()
        .startsWith(web.url + '/')
        ? route.continue()
        : route.abort(),
    );
    await page.goto(link);
    await page.getByText('as Developer').waitFor();
    expect(await seriousAccessibilityFindings(page)).toEqual([]);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('button', { name: 'Accept invitation' }).click(),
    ]);
    expect(new URL(page.url()).pathname).toBe('/dashboard/home');

    // Signed out and in again with the keyboard, as the member.
    await page.context().clearCookies();
    await page.goto(`${web.url}/dashboard/sign-in`);
    await signInWithKeyboard(page, developer, PASSWORD);
    expect(new URL(page.url()).pathname).toBe('/dashboard/home');
    // A developer does not manage the team.
    const teamPage = await page.goto(`${web.url}/dashboard/team`);
    expect(teamPage!.status()).toBe(403);
    await page.getByText('cannot manage the team').waitFor();
  } finally {
    await context.close();
  }
  const row = await web.knex('users').where({ email: developer }).first();
  expect(row.role).toBe('developer');
  expect(row.email_verified_at).not.toBeNull();
  expect(row.merchant_id).toBe((await web.knex('users').where({ email }).first()).merchant_id);

  // The owner's team page lists the member; the owner changes the role, and the link is spent.
  await owner.get('/dashboard/team');
  expect(owner.last!.text).toContain(developer);
  const id = await memberId(developer);
  expect((await owner.post(`/dashboard/team/members/${id}/role`, { role: 'read_only' })).status).toBe(200);
  expect((await web.knex('users').where({ id }).first()).role).toBe('read_only');
  const again = new WebClient(web.url);
  expect((await again.get(new URL(link).pathname + new URL(link).search)).status).toBe(400);
});

test('the team page in the browser passes the accessibility check, in both languages', async () => {
  const { email } = await signUp();
  await verify(email);
  const context = await browser.newContext({ bypassCSP: true });
  try {
    const page = await context.newPage();
    await page.goto(`${web.url}/dashboard/sign-in`);
    await signInWithKeyboard(page, email, PASSWORD);
    for (const lang of ['en', 'is']) {
      await page.goto(`${web.url}/dashboard/team?lang=${lang}`);
      expect(await page.getAttribute('html', 'lang')).toBe(lang);
      expect(await seriousAccessibilityFindings(page)).toEqual([]);
    }
    await page.getByRole('heading', { name: 'Bjóða meðlim' }).waitFor();
  } finally {
    await context.close();
  }
});

test('the last owner can be neither removed nor demoted; others can, and a removed member is out', async () => {
  const { owner, email } = await signUp();
  await verify(email);
  const ownerId = await memberId(email);
  await owner.get('/dashboard/team');
  const removeSelf = await owner.post(`/dashboard/team/members/${ownerId}/remove`, {});
  expect(removeSelf.status).toBe(409);
  expect(removeSelf.text).toContain('The last owner cannot be removed');
  const demoteSelf = await owner.post(`/dashboard/team/members/${ownerId}/role`, { role: 'developer' });
  expect(demoteSelf.status).toBe(409);
  expect((await web.knex('users').where({ id: ownerId }).first()).role).toBe('owner');

  const finance = newEmail('finance');
  expect((await invite(owner, finance, 'finance')).status).toBe(200);
  const member = await accept(finance);
  expect((await member.get('/dashboard/home')).status).toBe(200);
  await owner.get('/dashboard/team');
  expect((await owner.post(`/dashboard/team/members/${await memberId(finance)}/remove`, {})).status).toBe(
    200,
  );
  // Their session is over and they cannot sign in.
  expect((await member.get('/dashboard/home')).status).toBe(303);
  expect((await new WebClient(web.url).signIn(finance, PASSWORD)).status).toBe(401);
});

test('two owners demoting or removing each other at once: one wins, the merchant keeps an owner, every time', async () => {
  const { owner: a, email: aEmail } = await signUp();
  await verify(aEmail);
  const bEmail = newEmail('second-owner');
  expect((await invite(a, bEmail, 'owner')).status).toBe(200);
  const b = await accept(bEmail);
  const ids = { a: await memberId(aEmail), b: await memberId(bEmail) };
  const clients: Record<'a' | 'b', WebClient> = { a, b };
  for (let round = 0; round < 10; round++) {
    await Promise.all([clients.a.get('/dashboard/team'), clients.b.get('/dashboard/team')]);
    const action = round % 2 === 0 ? 'role' : 'remove';
    const [ra, rb] = await Promise.all([
      clients.a.post(
        `/dashboard/team/members/${ids.b}/${action}`,
        action === 'role' ? { role: 'read_only' } : {},
      ),
      clients.b.post(
        `/dashboard/team/members/${ids.a}/${action}`,
        action === 'role' ? { role: 'read_only' } : {},
      ),
    ]);
    const owners = await web
      .knex('users')
      .whereIn('id', [ids.a, ids.b])
      .where({ role: 'owner' })
      .whereNull('disabled_at');
    expect(owners).toHaveLength(1);
    // One change wins; the other is refused: its actor is no longer an owner by the time the team is
    // locked for it (403), or no longer signed in at all (303 to sign-in) when removed.
    expect([ra.status, rb.status].filter((s) => s === 200)).toHaveLength(1);
    expect([303, 403]).toContain([ra.status, rb.status].find((s) => s !== 200));
    // The survivor makes the other an owner again (bringing a removed one back by a new invitation).
    const survivor = owners[0].id === ids.a ? 'a' : 'b';
    const other = survivor === 'a' ? 'b' : 'a';
    const otherEmail = other === 'a' ? aEmail : bEmail;
    if (action === 'role') {
      await clients[survivor].get('/dashboard/team');
      expect(
        (await clients[survivor].post(`/dashboard/team/members/${ids[other]}/role`, { role: 'owner' }))
          .status,
      ).toBe(200);
      await clients[other].get('/dashboard/team');
    } else {
      expect((await invite(clients[survivor], otherEmail, 'owner')).status).toBe(200);
      clients[other] = await accept(otherEmail);
    }
  }
});
