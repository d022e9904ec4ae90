import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { createMerchantUser, createOperator, WebClient, type TestUser } from '../helpers/accounts';
import { linkIn } from '../helpers/mail';
import { settleDay } from '../helpers/settlement';
import { until } from '../helpers/until';
import { nextBankingDay } from '../../domain/banking-days';

/**
 * A changed payout account (decision 0228), through the dashboard and a live key, on the real
 * settlement path: every owner is emailed, the next payout is held while its run stays approved,
 * and confirming from the emailed link releases it to the new account. Its own stack: it runs a
 * settlement day, which takes every merchant's unsettled money, and needs the bank's SFTP outbox.
 */
let stack: TestStack;
let m: TestMerchant;
let owners: TestUser[];
let developer: TestUser;
let operator: { token: string };

const FIRST = '0101-26-123456';
const SECOND = '0133-26-654321';
const card = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' };

beforeAll(async () => {
  stack = await startTestStack({
    bankFiles: true,
    realBaseUrl: true,
    settlementAutoApproveMaxNet: 10_000_000,
  });
  m = await stack.merchant('Reikningur ehf.');
  owners = [
    await createMerchantUser(stack.knex, m.id, 'owner'),
    await createMerchantUser(stack.knex, m.id, 'owner'),
  ];
  developer = await createMerchantUser(stack.knex, m.id, 'developer');
  operator = await createOperator(stack.knex);
}, 120_000); // a stack with the simulated bank's SFTP file exchange and a worker starts in about a minute on 2 cores

afterAll(async () => {
  await stack?.stop();
});

const changeMails = (to: string) =>
  stack.mail
    .messages()
    .filter((x) => x.to.includes(to) && /payout account was changed|Greiðslureikningi/.test(x.subject));

test('a payout account change emails every owner and holds the next payout; confirming from the email releases it', async () => {
  // The first account is set with the kennitala; there is nothing to divert from, so it is not held.
  const first = await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: { kennitala: '4709063520', bank_account: FIRST },
  });
  expect(first.status).toBe(200);
  await stack.mail.waitFor((x) => x.to.includes(owners[1]!.email));

  // An owner changes it in the dashboard.
  const web = new WebClient(stack.url);
  expect((await web.signIn(owners[0]!.email, owners[0]!.password)).status).toBe(303);
  await web.get('/dashboard/profile');
  const saved = await web.post('/dashboard/profile', {
    name: 'Reikningur ehf.',
    kennitala: '4709063520',
    bank_account: SECOND,
  });
  expect(saved.status).toBe(200);
  expect(saved.text).toContain('data-testid="payout-held"');
  expect(saved.text).toContain('…4321');

  // Every owner is emailed, with the masked accounts and where the change came from; the developer is not.
  for (const owner of owners) {
    await stack.mail.waitFor((x) => x.to.includes(owner.email) && x.text.includes('…4321'));
    const mail = changeMails(owner.email).at(-1)!;
    expect(mail.text).toContain('…3456');
    expect(mail.text).toContain('127.0.0.1');
    expect(mail.text).not.toContain('654321');
  }
  expect(changeMails(developer.email)).toHaveLength(0);

  // Money to pay out: a card payment, then the operator's settlement day; the run is approved by
  // policy, and its payout waits on the held account.
  const paid = await stack.api(m.testKey, '/v1/payment-intents', {
    method: 'POST',
    json: { amount: 5000, card, confirm: true },
  });
  expect(paid.body.status).toBe('succeeded');
  const date = nextBankingDay(new Date().toISOString().slice(0, 10));
  const { run } = await settleDay(stack, operator.token, m, date);
  expect(run.status).toBe('approved');
  // Give the run's workflow time to try the payout, then it is still approved and has none.
  await new Promise((r) => setTimeout(r, 3000));
  const held = await stack.api(m.testKey, `/v1/settlement-runs/${run.id}`);
  expect(held.body).toMatchObject({ status: 'approved', payout: null });
  expect(await stack.knex('payouts').where({ settlement_run_id: run.id }).first()).toBeUndefined();

  // The second owner confirms from the email: opening the link asks, only the form confirms.
  const link = linkIn(
    changeMails(owners[1]!.email).at(-1)!,
    `${stack.url}/dashboard/payout-account/confirm?token=`,
  );
  const fromMail = new WebClient(stack.url);
  const asked = await fromMail.get(new URL(link).pathname + new URL(link).search);
  expect(asked.status).toBe(200);
  expect((await stack.api(m.testKey, `/v1/settlement-runs/${run.id}`)).body.payout).toBeNull();
  const token = new URL(link).searchParams.get('token')!;
  const confirmed = await fromMail.post('/dashboard/payout-account/confirm', { token });
  expect(confirmed.status).toBe(200);

  // Released: the payout is written to the new account and handed to the bank.
  const released = await until(
    () => stack.api(m.testKey, `/v1/settlement-runs/${run.id}`),
    (r) => r.body.payout !== null && r.body.status === 'submitted',
    30_000,
  );
  expect(released.body.payout).toMatchObject({ destination_account: SECOND, amount: run.net });
  expect((await web.get('/dashboard/profile')).text).not.toContain('data-testid="payout-held"');

  // A bad or reused link confirms nothing new.
  expect((await fromMail.get('/dashboard/payout-account/confirm?token=nope')).status).toBe(400);
});

test('a change with a live key emails every owner too and is held', async () => {
  const before = changeMails(owners[0]!.email).length;
  const changed = await stack.api(m.liveKey, '/v1/merchant', {
    method: 'PATCH',
    json: { bank_account: FIRST },
  });
  expect(changed.status).toBe(200);
  for (const owner of owners)
    await until(
      () => Promise.resolve(changeMails(owner.email)),
      (mails) => mails.length > before && /live API key|raunlykli/.test(mails.at(-1)!.text),
      10_000,
    );
  const web = new WebClient(stack.url);
  await web.signIn(owners[1]!.email, owners[1]!.password);
  expect((await web.get('/dashboard/profile')).text).toContain('data-testid="payout-held"');
});
