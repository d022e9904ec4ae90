import type { ChildProcess } from 'node:child_process';
import { nextBankingDay } from '../../domain/banking-days';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { killHard, spawnWorker } from '../helpers/worker-process';

/**
 * A worker killed during the steps resumes them without a step twice (decision 0246): the collection
 * run's worker is a process of its own, SIGKILLed while the run's pages are in flight (steps
 * recorded, bank alterations and letters part sent) and replaced; every krafa ends with each step
 * once, one bank alteration and one letter per step that sends them.
 */

const N = 120;
const DAY = 86_400_000;
// One kill is the case; each costs the page's 30 s heartbeat timeout before its retry.
const KILLS = 1;
let stack: TestStack;
let m: TestMerchant;
let worker: ChildProcess | undefined;

beforeAll(async () => {
  stack = await startTestStack({ worker: false, bank: true, realBaseUrl: true });
  m = await stack.merchant('Endurræsing ehf.');
  await stack.knex('merchants').where({ id: m.id }).update({ kennitala: '5510730339' });
}, 120_000);
afterAll(async () => {
  if (worker) await killHard(worker);
  await stack?.stop();
});

const spawn = () =>
  spawnWorker(stack, {
    extraEnv: {
      SIMULATED_BANK_URL: stack.bank!.bank.url,
      SMTP_URL: stack.mail.smtpUrl,
      PUBLIC_BASE_URL: stack.url,
    },
  });

test(`a worker SIGKILLed during a collection run of ${N} kröfur: each step, alteration and letter once`, async () => {
  const api = (p: string, json: unknown) => stack.api(m.testKey, p, { method: 'POST', json });
  worker = await spawn();
  const today = new Date().toISOString().slice(0, 10);
  const customer = await api('/v1/customers', {
    name: 'Jón Jónsson',
    kennitala: '1201603389',
    email: 'jon@example.test',
  });
  expect(customer.status).toBe(200);
  const ids: string[] = [];
  for (let i = 0; i < N; i += 20)
    ids.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, N - i) }, async () => {
          const c = await api('/v1/claims', { customer: customer.body.id, amount: 12_000, due_date: today });
          expect(c.status).toBe(200);
          return c.body.id as string;
        }),
      )),
    );
  const eindagi = (await stack.knex('claims').where({ id: ids[0] }).first()).final_due_date as string;
  await stack.client.workflow.execute('claimBatch', {
    workflowId: `claim-batch/test/crash-${m.id}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, batch: `crash-${m.id}`, pollMs: 50 }],
  });
  const bankIds = new Map<string, string>(
    (await stack.knex('claims').whereIn('id', ids).select('id', 'bank_claim_id')).map((r) => [
      r.bank_claim_id as string,
      r.id as string,
    ]),
  );
  expect(bankIds.size).toBe(N);

  // Every alteration the bank carries out, counted per krafa (a replayed idempotency key is not one).
  const ledger = stack.bank!.bank.ledger;
  const altered = new Map<string, number>();
  const alter = ledger.alter.bind(ledger);
  ledger.alter = (claimId, patch) => {
    const id = bankIds.get(claimId);
    if (id) altered.set(id, (altered.get(id) ?? 0) + 1);
    return alter(claimId, patch);
  };
  const mailBefore = stack.mail.messages().length;

  const overdueOn = new Date(Date.parse(`${nextBankingDay(eindagi)}T00:00:00Z`) + DAY);
  const asOf = overdueOn.getTime() + 30 * 60_000;
  const handle = await stack.client.workflow.start('collectionRun', {
    workflowId: `collection-run/test/crash-${m.id}`,
    taskQueue: stack.taskQueue,
    args: [{ livemode: false, asOf, testClockId: null, pageSize: 10, lanes: 2 }],
  });
  const count = async (sql: string) => Number((await stack.knex.raw(sql, [m.id])).rows[0].n);
  const recorded = () => count(`select count(*) as n from claim_collection_steps where merchant_id = ?`);
  const mailed = () =>
    count(`select count(*) as n from claim_collection_steps where merchant_id = ? and mailed_at is not null`);
  const kills: { steps: number; mailed: number }[] = [];
  for (let k = 0; k < KILLS; k++) {
    // Kill once this worker has recorded steps of its own, before the run is through.
    const before = await recorded();
    for (let waited = 0; (await recorded()) <= before && waited < 30_000; waited += 50)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, Math.random() * 300));
    kills.push({ steps: await recorded(), mailed: await mailed() });
    await killHard(worker);
    worker = await spawn();
  }
  const totals = await handle.result();
  console.log(
    `collection run under ${KILLS} kill(s) (steps recorded, letters sent at each: ${kills
      .map((k) => `${k.steps}, ${k.mailed}`)
      .join('; ')}); totals ${JSON.stringify(totals)}`,
  );

  // The kill fell inside the run: letters were still to send.
  expect(kills.every((k) => k.mailed < N)).toBe(true);
  const steps = await stack.knex('claim_collection_steps').where({ merchant_id: m.id });
  const byClaim = new Map<string, string[]>();
  for (const s of steps) byClaim.set(s.claim_id, [...(byClaim.get(s.claim_id) ?? []), `${s.step}:${s.kind}`]);
  expect(byClaim.size).toBe(N);
  for (const [, kinds] of byClaim) expect(kinds.sort()).toEqual(['0:overdue', '1:warning']);
  // A delivery is not "done" until marked: the run finished every step it recorded.
  expect(
    steps.filter((s) => s.bank_altered_at === null || (s.mailed_at === null && s.mail_error === null)),
  ).toEqual([]);
  // One alteration per krafa: its warning's totals cover its overdue day (decision 0246).
  expect(ids.filter((id) => altered.get(id) !== 1)).toEqual([]);
  // Each letter once: per krafa and subject, and a warning to every krafa.
  const letters = stack.mail.messages().slice(mailBefore);
  const perKrafa = new Map<string, number>();
  for (const x of letters) {
    const id = ids.find((i) => x.text.includes(`/krafa/${i}`));
    const key = `${id ?? 'no krafa'} ${x.subject}`;
    perKrafa.set(key, (perKrafa.get(key) ?? 0) + 1);
  }
  expect([...perKrafa].filter(([, n]) => n !== 1)).toEqual([]);
  expect(letters.filter((x) => x.subject.startsWith('Innheimtuviðvörun'))).toHaveLength(N);
  const events = await count(
    `select count(*) as n from events where merchant_id = ? and type = 'claim.collection_step_taken'`,
  );
  expect(events).toBe(N);
  expect(
    await count(`select count(*) as n from events where merchant_id = ? and type = 'claim.overdue'`),
  ).toBe(N);
  // A 30 s heartbeat timeout after the kill, beside issuing and the run itself (about 100 s alone).
}, 240_000);
