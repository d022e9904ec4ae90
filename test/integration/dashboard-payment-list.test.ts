/**
 * The payment list's filters, sorting and CSV export (decision 0232), through the dashboard as
 * members of each role use it. Payments are made through the API, some with descriptions a
 * spreadsheet would run as formulas; another merchant has payments of the same amounts.
 */
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { WebClient, createMerchantUser } from '../helpers/accounts';
import type { MemberRole } from '../../domain/member-roles';

let stack: TestStack;
let m: TestMerchant;
const web = {} as Record<MemberRole, WebClient>;
const payments: { id: string; amount: number; description: string }[] = [];
const claims: { id: string; due: string; payer: string }[] = [];
const dayAhead = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10);

const card = { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' };
const FORMULAS = ['=1+2', '+SUM(A1:A2)', '-2+3', '@cmd', '=HYPERLINK("http://example.test","x")'];

beforeAll(async () => {
  stack = await startTestStack({ realBaseUrl: true });
  m = await stack.merchant('Listi ehf.');
  const other = await stack.merchant('Annar listi ehf.');
  // Thirty payments of 1,000 … 30,000 ISK (two pages of the list), five described like formulas.
  for (let i = 1; i <= 30; i++) {
    const description = FORMULAS[i % 6] ?? `Vara ${i}, stór`;
    const r = await stack.api(m.testKey, '/v1/payment-intents', {
      method: 'POST',
      json: { amount: i * 1000, card, confirm: true, description },
    });
    expect(r.body.status).toBe('succeeded');
    payments.push({ id: r.body.id, amount: i * 1000, description });
  }
  // Three kröfur due in 10, 20 and 30 days, the last from another payer.
  await stack.api(m.testKey, '/v1/merchant', {
    method: 'PATCH',
    json: { kennitala: '4709063520', bank_account: '0101-26-123456' },
  });
  for (const [days, payer] of [
    [10, '0101302989'],
    [20, '0101302989'],
    [30, '1203894569'],
  ] as const) {
    const r = await stack.api(m.testKey, '/v1/claims', {
      method: 'POST',
      json: { payer_kennitala: payer, amount: 1000 * days, due_date: dayAhead(days) },
    });
    expect(r.status).toBe(200);
    claims.push({ id: r.body.id, due: r.body.due_date, payer });
  }
  for (const amount of [5000, 15000])
    await stack.api(other.testKey, '/v1/payment-intents', {
      method: 'POST',
      json: { amount, card, confirm: true },
    });
  for (const role of ['owner', 'finance', 'developer', 'read_only'] as const) {
    const user = await createMerchantUser(stack.knex, m.id, role);
    web[role] = new WebClient(stack.url);
    expect((await web[role].signIn(user.email, user.password)).status).toBe(303);
  }
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** Every payment id the list shows under `query`, following its pages. */
async function listed(query: string): Promise<string[]> {
  const ids: string[] = [];
  let path = `/dashboard/payments?${query}`;
  for (;;) {
    const res = await web.owner.get(path);
    expect(res.status).toBe(200);
    ids.push(...[...res.text.matchAll(/data-payment="([^"]+)"/g)].map((x) => x[1]!));
    const next = /<a rel="next" href="([^"]+)"/.exec(res.text)?.[1];
    if (!next) return ids;
    path = next.replace(/&amp;/g, '&');
  }
}

/** RFC 4180 records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else if (c !== '\r') cell += c;
  }
  return rows;
}

test('amount range, sorted by amount: the list shows exactly those, in that order, over two pages', async () => {
  const ids = await listed('min=3.000&max=27000&sort=amount_asc');
  const want = payments.filter((p) => p.amount >= 3000 && p.amount <= 27000).map((p) => p.id);
  expect(ids).toEqual(want);
  expect(ids).toHaveLength(25);
  expect(await listed('min=3000&max=27000&sort=amount_desc')).toEqual([...want].reverse());
  const today = new Date().toISOString().slice(0, 10);
  expect((await listed(`from=${today}&to=${today}&kind=card&status=succeeded`)).sort()).toEqual(
    payments.map((p) => p.id).sort(),
  );
  expect(await listed('kind=krafa')).toEqual([]);
  expect(await listed('from=2020-01-01&to=2020-12-31')).toEqual([]);
});

test("the CSV's rows are the list's under the same filter, formula-looking text escaped", async () => {
  const query = 'min=2000&max=29000&sort=amount_desc';
  const res = await web.finance.get(`/dashboard/payments/export.csv?${query}`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
  const [header, ...rows] = parseCsv(res.text);
  expect(header).toEqual(expect.arrayContaining(['id', 'amount', 'fee', 'net', 'description']));
  const col = (name: string) => header!.indexOf(name);
  expect(rows.map((r) => r[col('id')])).toEqual(await listed(query));
  expect(rows).toHaveLength(28);
  for (const r of rows) {
    const p = payments.find((x) => x.id === r[col('id')])!;
    expect(Number(r[col('amount')])).toBe(p.amount);
    expect(Number(r[col('net')])).toBe(p.amount - Number(r[col('fee')]));
    const text = r[col('description')]!;
    if (FORMULAS.includes(p.description)) expect(text).toBe(`'${p.description}`);
    else expect(text).toBe(p.description);
    expect(text).not.toMatch(/^[=+\-@]/);
  }
});

test('roles: owner and finance may export; developer and read-only get 403 and no rows', async () => {
  expect((await web.owner.get('/dashboard/payments/export.csv')).status).toBe(200);
  for (const role of ['developer', 'read_only'] as const) {
    const res = await web[role].get('/dashboard/payments/export.csv');
    expect({ role, status: res.status }).toEqual({ role, status: 403 });
    expect(res.text).not.toContain(payments[0]!.id);
    // The list itself is theirs to read, without the export link.
    const list = await web[role].get('/dashboard/payments');
    expect(list.status).toBe(200);
    expect(list.text).not.toContain('export.csv');
  }
  expect((await web.owner.get('/dashboard/payments')).text).toContain('/dashboard/payments/export.csv');
});

test('bad filter input is an inline error beside its field, never a 500', async () => {
  const cases: [string, string[]][] = [
    ['from=2026-12-10&to=2026-12-01', ['to']],
    ['min=abc', ['min']],
    ['min=5000&max=100', ['max']],
    ['from=2026-02-30&max=1e5', ['from', 'max']],
    ['status=paid&kind=cash&sort=random', ['status', 'kind', 'sort']],
    ['customer=%27%3B%20drop%20table', ['customer']],
  ];
  for (const [query, fields] of cases) {
    const res = await web.owner.get(`/dashboard/payments?${query}&lang=en`);
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
    expect([...res.text.matchAll(/data-error="(\w+)"/g)].map((x) => x[1])).toEqual(fields);
    expect(res.text).not.toContain('data-payment=');
    const csv = await web.owner.get(`/dashboard/payments/export.csv?${query}`);
    expect({ query, status: csv.status }).toEqual({ query, status: 400 });
  }
  const is = await web.owner.get('/dashboard/payments?min=abc&lang=is');
  expect(is.text).toContain('Skrifaðu heila tölu í krónum.');
});

test('kröfur: due date range and payer filter the list; bad input is an inline error beside its field', async () => {
  const shown = async (query: string) => {
    const res = await web.owner.get(`/dashboard/claims?${query}&lang=en`);
    expect({ query, status: res.status }).toEqual({ query, status: 200 });
    return [...res.text.matchAll(/data-claim="([^"]+)"/g)].map((x) => x[1]);
  };
  expect(await shown(`due_from=${dayAhead(15)}&due_to=${claims[2]!.due}`)).toEqual([
    claims[2]!.id,
    claims[1]!.id,
  ]);
  expect((await shown('payer=010130-2989')).sort()).toEqual([claims[0]!.id, claims[1]!.id].sort());
  for (const [query, fields] of [
    [`due_from=${dayAhead(30)}&due_to=${dayAhead(10)}`, ['due_to']],
    ['due_from=31.12.2026&payer=12345', ['due_from', 'payer']],
    ['status=paid_twice&customer=nobody', ['status', 'customer']],
  ] as const) {
    const res = await web.owner.get(`/dashboard/claims?${query}&lang=en`);
    expect({ query, status: res.status }).toEqual({ query, status: 400 });
    expect([...res.text.matchAll(/data-error="(\w+)"/g)].map((x) => x[1])).toEqual(fields);
  }
  // A well-formed customer id that names nobody: the API's own 4xx, shown on the page.
  expect((await web.owner.get('/dashboard/claims?customer=cus_doesnotexist1')).status).toBeLessThan(500);
});
