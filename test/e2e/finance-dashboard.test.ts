import type { Browser, Page } from 'playwright-core';
import { startTestStack, type TestMerchant, type TestStack } from '../helpers/stack';
import { WebClient, createMerchantUser, createOperator, type TestUser } from '../helpers/accounts';
import { launchChromium, openPage, signInWithKeyboard, type TestPage } from '../helpers/browser';

/**
 * Issue 8, Build item 6: the finance dashboard in headless Chromium. Runs, lines, payouts, bank
 * files, entries and exceptions are rows this file inserts itself (the bank sync and settlement
 * parts are tested on their own); the exception actions and the audit log go through the real
 * service and database.
 */

// Browser globals for the callbacks that run inside page.evaluate (the project compiles without lib "dom").
declare const document: { documentElement: { lang: string } };

let stack: TestStack;
let browser: Browser;
let a: TestMerchant;
let b: TestMerchant;
let operator: TestUser;
let merchantUser: TestUser;
let tab: TestPage;
let page: Page;

const DAY_MS = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) =>
  new Date(Date.parse(`${today}T00:00:00Z`) - n * DAY_MS).toISOString().slice(0, 10);
const d1 = daysAgo(1);
const d10 = daysAgo(10);

async function seed(knex: TestStack['knex']): Promise<void> {
  const capturedAt = new Date(`${d1}T10:00:00Z`);
  const pi = (
    id: string,
    merchant: string,
    livemode: boolean,
    amount: number,
    fee: number,
    channel: string,
  ) => ({
    id,
    merchant_id: merchant,
    livemode,
    amount,
    status: 'succeeded',
    channel,
    amount_captured: amount,
    fee_amount: fee,
    captured_at: capturedAt,
  });
  await knex('payment_intents').insert([
    pi('pi_finA1', a.id, false, 100000, 1500, 'online'),
    pi('pi_finA2', a.id, false, 250000, 2000, 'pos'),
    pi('pi_finB1', b.id, false, 1234567, 18519, 'online'),
    pi('pi_finLive', a.id, true, 5000, 75, 'online'),
    { ...pi('pi_finOld', a.id, false, 50000, 750, 'online'), captured_at: new Date(`${d10}T10:00:00Z`) },
  ]);
  // The refund the run nets, so the ledger invariant finds the movement each line settles.
  await knex('payment_intents').where({ id: 'pi_finA1' }).update({ amount_refunded: 5000 });
  await knex('refunds').insert({
    id: 're_finA1',
    merchant_id: a.id,
    livemode: false,
    payment_intent_id: 'pi_finA1',
    amount: 5000,
    status: 'succeeded',
    idempotency_key: 're_finA1',
    acquirer_reference: 'rf_finA1',
    created_at: capturedAt,
  });
  const run = (
    id: string,
    merchant: string,
    livemode: boolean,
    date: string,
    status: string,
    gross: number,
    fee: number,
    lines: number,
  ) => ({
    id,
    merchant_id: merchant,
    livemode,
    settlement_date: date,
    cutoff: new Date(`${date}T23:59:59Z`),
    status,
    gross,
    fee,
    net: gross - fee,
    line_count: lines,
  });
  await knex('settlement_runs').insert([
    run('stl_finA', a.id, false, d1, 'pending_review', 345000, 3500, 3),
    run('stl_finB', b.id, false, d1, 'paid', 1234567, 18519, 1),
    run('stl_finOld', a.id, false, d10, 'paid', 50000, 750, 1),
    run('stl_finLive', a.id, true, d1, 'pending_review', 5000, 75, 1),
  ]);
  const line = (
    kind: string,
    feeKind: string,
    source: string,
    piId: string,
    gross: number,
    fee: number,
    owner: { run: string; merchant: string; livemode: boolean } = {
      run: 'stl_finA',
      merchant: a.id,
      livemode: false,
    },
  ) => ({
    settlement_run_id: owner.run,
    merchant_id: owner.merchant,
    livemode: owner.livemode,
    kind,
    fee_kind: feeKind,
    source_id: source,
    payment_intent_id: piId,
    gross,
    fee,
    net: gross - fee,
    occurred_at: capturedAt,
  });
  await knex('settlement_lines').insert([
    line('payment', 'card_online', 'pi_finA1', 'pi_finA1', 100000, 1500),
    line('payment', 'card_pos', 'pi_finA2', 'pi_finA2', 250000, 2000),
    line('refund', 'card_online', 're_finA1', 'pi_finA1', -5000, 0),
    // Each other run holds the one payment it settled.
    line('payment', 'card_online', 'pi_finB1', 'pi_finB1', 1234567, 18519, {
      run: 'stl_finB',
      merchant: b.id,
      livemode: false,
    }),
    line('payment', 'card_online', 'pi_finOld', 'pi_finOld', 50000, 750, {
      run: 'stl_finOld',
      merchant: a.id,
      livemode: false,
    }),
    line('payment', 'card_online', 'pi_finLive', 'pi_finLive', 5000, 75, {
      run: 'stl_finLive',
      merchant: a.id,
      livemode: true,
    }),
  ]);
  await knex('payouts').insert({
    id: 'po_finB',
    merchant_id: b.id,
    livemode: false,
    settlement_run_id: 'stl_finB',
    amount: 1216048,
    destination_account: '011126001234',
    destination_kennitala: '5012131870',
    idempotency_key: 'stl_finB:payout',
    end_to_end_id: 'po_finB',
    channel: 'sftp',
    status: 'paid',
  });
  const file = (
    id: string,
    livemode: boolean,
    name: string,
    status: string,
    reason: string | null,
    entries: number,
  ) => ({
    id,
    livemode,
    connection: 'simulated',
    name,
    sha256: id.padEnd(64, '0').replace(/[^0-9a-f]/g, 'a'),
    size: 1000,
    storage_path: `bank-files/${id}.xml`,
    status,
    message_type: status === 'quarantined' ? null : 'camt.054',
    quarantine_reason: reason,
    entry_count: entries,
    received_at: new Date(`${d1}T08:00:00Z`),
  });
  const ymd = d1.replaceAll('-', '');
  await knex('bank_files').insert([
    file('bf_fin1', false, `camt054_${ymd}_1.xml`, 'processed', null, 2),
    file(
      'bf_fin2',
      false,
      `camt053_${ymd}_2.xml`,
      'quarantined',
      'doctype_forbidden: a DOCTYPE is not allowed',
      0,
    ),
    file('bf_finLive', true, `camt054_${ymd}_9.xml`, 'processed', null, 1),
  ]);
  const [statement] = await knex('bank_statements')
    .insert({
      bank_file_id: 'bf_fin1',
      livemode: false,
      message_type: 'camt.054',
      statement_id: `CLM-${ymd}`,
      account: '013326000133',
      currency: 'ISK',
      entry_count: 2,
      credits: 7777 + 12345,
    })
    .returning('id');
  const entry = (index: number, amount: number, extra: Record<string, unknown>) => ({
    bank_statement_id: (statement as { id: number }).id,
    bank_file_id: 'bf_fin1',
    livemode: false,
    entry_index: index,
    status: 'BOOK',
    booked: true,
    credit: true,
    amount,
    currency: 'ISK',
    booking_date: d1,
    ...extra,
  });
  const entryIds: { id: number }[] = await knex('bank_entries')
    .insert([
      entry(0, 7777, { acct_svcr_ref: `CLM-${ymd}`, match_status: 'exception' }),
      entry(1, 12345, { end_to_end_id: 'E2E-FIN-1', match_status: 'matched', matched_kind: 'claim_payment' }),
    ])
    .returning('id');
  await knex('bank_exceptions').insert([
    {
      id: 'bex_fin1',
      livemode: false,
      bank_file_id: 'bf_fin1',
      bank_entry_id: entryIds[0]!.id,
      kind: 'unmatched',
      message: 'No claim payment or deposit matches this entry',
      actual_amount: 7777,
    },
    {
      id: 'bex_fin2',
      livemode: false,
      bank_file_id: 'bf_fin1',
      bank_entry_id: entryIds[1]!.id,
      detail_index: 1,
      kind: 'amount_mismatch',
      message: 'The claim was for another amount',
      expected_amount: 12000,
      actual_amount: 12345,
    },
    {
      id: 'bex_finLive',
      livemode: true,
      bank_file_id: 'bf_finLive',
      kind: 'unmatched',
      message: 'Live exception',
      actual_amount: 999,
    },
  ]);
}

beforeAll(async () => {
  [stack, browser] = await Promise.all([
    startTestStack({ worker: false, realBaseUrl: true }),
    launchChromium(),
  ]);
  a = await stack.merchant('Kaffi ehf.');
  b = await stack.merchant('Bókabúð hf.');
  operator = await createOperator(stack.knex);
  merchantUser = await createMerchantUser(stack.knex, a.id);
  await seed(stack.knex);
  tab = await openPage(browser, stack.url);
  page = tab.page;
  // Not signed in: the finance page sends the operator to sign in and back.
  await page.goto(`${stack.url}/dashboard/finance?env=test`);
  expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
  await signInWithKeyboard(page, operator.email, operator.password);
  expect(page.url()).toBe(`${stack.url}/dashboard/finance?env=test`);
});
afterAll(async () => {
  await tab?.context.close();
  await browser?.close();
  await stack?.stop();
});

const text = (selector: string) => page.locator(selector).innerText();

describe('runs by day', () => {
  test('settlement runs grouped by day with exact totals, only of the chosen environment', async () => {
    await page.goto(`${stack.url}/dashboard/finance?env=test`);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Settlement runs by day');
    const day = await text(`tbody[data-date="${d1}"] tr.day-total`);
    // 345,000 + 1,234,567 gross; 3,500 + 18,519 fees; net the difference.
    expect(day).toContain('ISK 1,579,567');
    expect(day).toContain('ISK 22,019');
    expect(day).toContain('ISK 1,557,548');
    expect(day).toContain('pending review, paid');
    const runA = await text('tr[data-run="stl_finA"]');
    expect(runA).toContain('Kaffi ehf.');
    expect(runA).toContain('ISK 341,500');
    await expect(page.locator(`tbody[data-date="${d10}"] tr[data-run="stl_finOld"]`).count()).resolves.toBe(
      1,
    );
    // The live run is not in the test environment, and the reverse.
    await expect(page.locator('tr[data-run="stl_finLive"]').count()).resolves.toBe(0);
    await page.getByTestId('env-switch').click();
    await page.waitForURL(/env=live/);
    await expect(page.getByTestId('finance-env').innerText()).resolves.toBe('Live');
    await expect(page.locator('tr[data-run="stl_finLive"]').count()).resolves.toBe(1);
    await expect(page.locator('tr[data-run="stl_finA"]').count()).resolves.toBe(0);
    expect(tab.errors).toEqual([]);
  });

  test('the chart has 90 days ending today, titled, with its figures as a table', async () => {
    await page.goto(`${stack.url}/dashboard/finance?env=test`);
    const chart = page.locator('svg.chart');
    await expect(chart.getAttribute('role')).resolves.toBe('img');
    await expect(chart.locator('title#chart-title').count()).resolves.toBe(1);
    await expect(chart.locator('desc#chart-desc').textContent()).resolves.toContain('ISK 1,629,567');
    await expect(chart.locator('g.day').count()).resolves.toBe(90);
    await expect(chart.locator('g.day').first().getAttribute('data-date')).resolves.toBe(daysAgo(89));
    await expect(chart.locator('g.day').last().getAttribute('data-date')).resolves.toBe(today);
    // Three bars per day; the day with runs has bars of height > 0.
    await expect(chart.locator(`g.day[data-date="${d1}"] rect`).count()).resolves.toBe(3);
    const heights = await chart
      .locator(`g.day[data-date="${d1}"] rect`)
      .evaluateAll((rects) =>
        rects.map((r) =>
          Number((r as unknown as { getAttribute(n: string): string }).getAttribute('height')),
        ),
      );
    expect(heights.every((h) => h > 0)).toBe(true);
    await expect(page.locator('table.chart-data tbody tr').count()).resolves.toBe(90);
    const row = page.locator('table.chart-data tbody tr', { hasText: d1 });
    // Inside a closed <details>: read the text, not what is rendered.
    await expect(row.textContent()).resolves.toMatch(/ISK 1,579,567\s+ISK 22,019\s+ISK 1,557,548\s+2\s*$/);
  });

  test('Icelandic: labels, amounts as 1.234.567 kr., <html lang="is">, remembered across pages', async () => {
    await page.goto(`${stack.url}/dashboard/finance?env=test`);
    await page.getByRole('link', { name: 'Íslenska' }).click();
    await page.waitForURL(/lang=is/);
    await expect(page.evaluate(() => document.documentElement.lang)).resolves.toBe('is');
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Uppgjör eftir dögum');
    const day = await text(`tbody[data-date="${d1}"] tr.day-total`);
    expect(day).toContain('1.579.567 kr.');
    expect(day).toContain('22.019 kr.');
    expect(day).toContain('bíður yfirferðar, greitt');
    // The cookie remembers the choice on a page opened without ?lang.
    await page.goto(`${stack.url}/dashboard/finance/bank-files?env=test`);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Bankaskrár');
    await expect(page.evaluate(() => document.documentElement.lang)).resolves.toBe('is');
    await page.getByRole('link', { name: 'English' }).click();
    await page.waitForURL(/lang=en/);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Bank files');
    await expect(page.evaluate(() => document.documentElement.lang)).resolves.toBe('en');
  });
});

describe('merchant filter', () => {
  const filterSelect = () => page.locator('select[name="merchant"]');
  const runIds = () =>
    page
      .locator('table.runs tr[data-run]')
      .evaluateAll((rows) =>
        rows.map((r) => (r as unknown as { getAttribute(n: string): string }).getAttribute('data-run')),
      );

  test('choosing a merchant shows only its runs, day totals and chart; the links keep env and merchant', async () => {
    await page.goto(`${stack.url}/dashboard/finance?env=test&lang=en`);
    // The test environment's merchants with runs, by name, after "All merchants" (chosen).
    await expect(filterSelect().locator('option').allInnerTexts()).resolves.toEqual([
      'All merchants',
      'Bókabúð hf.',
      'Kaffi ehf.',
    ]);
    await expect(filterSelect().inputValue()).resolves.toBe('');
    await filterSelect().selectOption({ label: 'Kaffi ehf.' });
    await Promise.all([page.waitForURL(/merchant=/), page.getByRole('button', { name: 'Show' }).click()]);
    const url = new URL(page.url());
    expect(url.pathname).toBe('/dashboard/finance');
    expect(url.searchParams.get('env')).toBe('test');
    expect(url.searchParams.get('merchant')).toBe(a.id);
    await expect(filterSelect().inputValue()).resolves.toBe(a.id);
    expect(await runIds()).toEqual(['stl_finA', 'stl_finOld']);
    const day = await text(`tbody[data-date="${d1}"] tr.day-total`);
    expect(day).toMatch(/Day total: 1\s+pending review\s+ISK 345,000\s+ISK 3,500\s+ISK 341,500\s+3/);
    await expect(text(`tbody[data-date="${d10}"] tr.day-total`)).resolves.toMatch(
      /Day total: 1\s+paid\s+ISK 50,000\s+ISK 750\s+ISK 49,250\s+1/,
    );
    // The chart: A's 90 days only (345,000 + 50,000 gross; 3,500 + 750 fees), titled with its name.
    const chart = page.locator('svg.chart');
    await expect(chart.locator('title#chart-title').textContent()).resolves.toBe(
      'Daily gross, fees and net, last 90 days: Kaffi ehf.',
    );
    const desc = await chart.locator('desc#chart-desc').textContent();
    expect(desc).toContain('gross ISK 395,000, fees ISK 4,250, net ISK 390,750');
    await expect(chart.locator('g.day').count()).resolves.toBe(90);
    await expect(page.locator('table.chart-data tbody tr', { hasText: d1 }).textContent()).resolves.toMatch(
      /ISK 345,000\s+ISK 3,500\s+ISK 341,500\s+1\s*$/,
    );

    // The environment switch keeps the merchant: A's live run only.
    const envHref = new URL((await page.getByTestId('env-switch').getAttribute('href'))!, stack.url);
    expect(Object.fromEntries(envHref.searchParams)).toEqual({ env: 'live', merchant: a.id });
    await Promise.all([page.waitForURL(/env=live/), page.getByTestId('env-switch').click()]);
    await expect(page.getByTestId('finance-env').innerText()).resolves.toBe('Live');
    await expect(filterSelect().inputValue()).resolves.toBe(a.id);
    expect(await runIds()).toEqual(['stl_finLive']);
    await expect(text(`tbody[data-date="${d1}"] tr.day-total`)).resolves.toMatch(
      /ISK 5,000\s+ISK 75\s+ISK 4,925/,
    );
    // So do the language links, and the filter form carries the environment.
    await Promise.all([page.waitForURL(/lang=is/), page.getByRole('link', { name: 'Íslenska' }).click()]);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({
      env: 'live',
      merchant: a.id,
      lang: 'is',
    });
    await expect(text(`tbody[data-date="${d1}"] tr.day-total`)).resolves.toMatch(
      /5\.000 kr\.\s+75 kr\.\s+4\.925 kr\./,
    );
    // Live has only A's runs to choose from.
    await expect(filterSelect().locator('option').allInnerTexts()).resolves.toEqual([
      'Allir söluaðilar',
      'Kaffi ehf.',
    ]);
    await Promise.all([page.waitForURL(/lang=en/), page.getByRole('link', { name: 'English' }).click()]);

    // Back in test (the filter kept), then B: its run alone, with its figures.
    await Promise.all([page.waitForURL(/env=test/), page.getByTestId('env-switch').click()]);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ env: 'test', merchant: a.id });
    await filterSelect().selectOption({ label: 'Bókabúð hf.' });
    await Promise.all([
      page.waitForURL(new RegExp(`merchant=${b.id}`)),
      page.getByRole('button', { name: 'Show' }).click(),
    ]);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ env: 'test', merchant: b.id });
    expect(await runIds()).toEqual(['stl_finB']);
    await expect(text(`tbody[data-date="${d1}"] tr.day-total`)).resolves.toMatch(
      /Day total: 1\s+paid\s+ISK 1,234,567\s+ISK 18,519\s+ISK 1,216,048\s+1/,
    );
    await expect(page.locator(`tbody[data-date="${d10}"]`).count()).resolves.toBe(0);
    await expect(page.locator('desc#chart-desc').textContent()).resolves.toContain(
      'gross ISK 1,234,567, fees ISK 18,519, net ISK 1,216,048',
    );

    // B has no live runs: switched to live it stays chosen, with the empty state, not everyone's runs.
    await Promise.all([page.waitForURL(/env=live/), page.getByTestId('env-switch').click()]);
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ env: 'live', merchant: b.id });
    await expect(filterSelect().inputValue()).resolves.toBe(b.id);
    await expect(page.locator('table.runs').count()).resolves.toBe(0);
    await expect(
      page.getByText('No settlement runs of Bókabúð hf. in this environment.').count(),
    ).resolves.toBe(1);
    await expect(page.locator('desc#chart-desc').textContent()).resolves.toContain(
      'gross ISK 0, fees ISK 0, net ISK 0',
    );
    await Promise.all([page.waitForURL(/env=test/), page.getByTestId('env-switch').click()]);

    // "All merchants" shows both again, with the day's combined totals.
    await filterSelect().selectOption({ label: 'All merchants' });
    await Promise.all([
      page.waitForURL(/merchant=(&|$)/),
      page.getByRole('button', { name: 'Show' }).click(),
    ]);
    expect(await runIds()).toEqual(['stl_finB', 'stl_finA', 'stl_finOld']);
    await expect(text(`tbody[data-date="${d1}"] tr.day-total`)).resolves.toMatch(
      /Day total: 2\s+pending review, paid\s+ISK 1,579,567\s+ISK 22,019\s+ISK 1,557,548\s+4/,
    );
    await expect(page.locator('desc#chart-desc').textContent()).resolves.toContain('ISK 1,629,567');
    const envAll = new URL((await page.getByTestId('env-switch').getAttribute('href'))!, stack.url);
    expect(Object.fromEntries(envAll.searchParams)).toEqual({ env: 'live' });
    expect(tab.errors).toEqual([]);
  });

  test('an unknown or malformed merchant id shows a message and no figures, never a 500', async () => {
    const noTrace = (body: string) => {
      expect(body).not.toMatch(/\n\s+at /);
      expect(body).not.toContain('Error:');
    };
    const unknown = await page.goto(
      `${stack.url}/dashboard/finance?env=test&lang=en&merchant=acct_doesNotExist`,
    );
    expect(unknown?.status()).toBe(200);
    await expect(page.getByRole('alert').innerText()).resolves.toBe(
      'There is no merchant acct_doesNotExist. Choose a merchant from the list.',
    );
    await expect(page.locator('tr[data-run]').count()).resolves.toBe(0);
    await expect(page.locator('svg.chart').count()).resolves.toBe(0);
    await expect(filterSelect().inputValue()).resolves.toBe('');
    noTrace(await page.content());

    const script = '<script>alert(1)</script>';
    for (const query of [
      `merchant=${encodeURIComponent(script)}`,
      `merchant=${encodeURIComponent(`${a.id}' or '1'='1`)}`,
      `merchant=${a.id}&merchant=${b.id}`,
      `merchant[id]=${a.id}`,
      `merchant=${'acct_' + 'x'.repeat(200)}`,
    ]) {
      const res = await page.goto(`${stack.url}/dashboard/finance?env=test&lang=en&${query}`);
      expect(res?.status()).toBe(400);
      await expect(page.getByRole('alert').innerText()).resolves.toBe(
        'The merchant filter is not a merchant id (acct_…). Choose a merchant from the list.',
      );
      await expect(page.locator('tr[data-run]').count()).resolves.toBe(0);
      const body = await res!.text();
      expect(body).not.toContain(script);
      noTrace(body);
    }
    // In Icelandic too; the environment switch drops the bad parameter.
    const is = await page.goto(`${stack.url}/dashboard/finance?env=test&lang=is&merchant=nope`);
    expect(is?.status()).toBe(400);
    await expect(page.getByRole('alert').innerText()).resolves.toBe(
      'Söluaðilasían er ekki auðkenni söluaðila (acct_…). Veldu söluaðila af listanum.',
    );
    const envHref = new URL((await page.getByTestId('env-switch').getAttribute('href'))!, stack.url);
    expect(Object.fromEntries(envHref.searchParams)).toEqual({ env: 'live' });
  });
});

describe("a run's page", () => {
  test('totals, lines, payout and the exceptions of its day', async () => {
    await page.goto(`${stack.url}/dashboard/finance?env=test&lang=en`);
    await page.getByRole('link', { name: 'stl_finA' }).click();
    await page.waitForURL(/\/dashboard\/finance\/runs\/stl_finA/);
    await expect(page.getByTestId('run-gross').innerText()).resolves.toBe('ISK 345,000');
    await expect(page.getByTestId('run-fee').innerText()).resolves.toBe('ISK 3,500');
    await expect(page.getByTestId('run-net').innerText()).resolves.toBe('ISK 341,500');
    await expect(page.getByTestId('run-status').innerText()).resolves.toBe('pending review');
    const lines = await page.locator('table.lines tbody tr').allInnerTexts();
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /payment\s+card_online\s+pi_finA1\s+pi_finA1\s+ISK 100,000\s+ISK 1,500\s+ISK 98,500/,
    );
    expect(lines[1]).toMatch(
      /payment\s+card_pos\s+pi_finA2\s+pi_finA2\s+ISK 250,000\s+ISK 2,000\s+ISK 248,000/,
    );
    expect(lines[2]).toMatch(/refund\s+card_online\s+pi_finA1\s+re_finA1\s+ISK -5,000\s+ISK 0\s+ISK -5,000/);
    await expect(page.getByText(/No payout yet/).count()).resolves.toBe(1);
    await expect(page.locator('table.exceptions tr[data-exception]').count()).resolves.toBe(2);
    await expect(page.getByRole('button', { name: 'Approve run' }).count()).resolves.toBe(1);

    // A paid run shows its payout and no approve button.
    await page.goto(`${stack.url}/dashboard/finance/runs/stl_finB?env=test`);
    await expect(page.getByTestId('payout-status').innerText()).resolves.toBe('paid');
    await expect(page.getByTestId('payout').innerText()).resolves.toContain('ISK 1,216,048');
    await expect(page.getByRole('button', { name: 'Approve run' }).count()).resolves.toBe(0);
    // Another environment's run is not found.
    const res = await page.goto(`${stack.url}/dashboard/finance/runs/stl_finLive?env=test`);
    expect(res?.status()).toBe(404);
  });
});

describe('approval', () => {
  test('Approve calls the settlement service: run approved by the operator, audited once', async () => {
    // Without a bank account to pay out to, approval is refused with the reason and changes nothing.
    await page.goto(`${stack.url}/dashboard/finance/runs/stl_finA?env=test&lang=en`);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Approve run' }).click()]);
    await expect(page.locator('.notice.error').innerText()).resolves.toContain(
      'The merchant has no bank account and kennitala to pay out to',
    );
    expect((await stack.knex('settlement_runs').where({ id: 'stl_finA' }).first()).status).toBe(
      'pending_review',
    );
    const owner = (await stack.knex('settlement_runs').where({ id: 'stl_finA' }).first()).merchant_id;
    await stack
      .knex('merchants')
      .where({ id: owner })
      .update({ kennitala: '4709063520', bank_account: '0101-26-123456' });

    await page.goto(`${stack.url}/dashboard/finance/runs/stl_finA?env=test&lang=en`);
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Approve run' }).click()]);
    expect(new URL(page.url()).searchParams.get('done')).toBe('approved');
    await expect(page.locator('.notice.ok').innerText()).resolves.toBe(
      'The run was approved and its payout is on its way.',
    );
    await expect(page.getByTestId('run-status').innerText()).resolves.toBe('approved');
    await expect(page.getByTestId('run-totals').innerText()).resolves.toContain(
      `Approved by\n${operator.email}`,
    );
    await expect(page.getByRole('button', { name: 'Approve run' }).count()).resolves.toBe(0);
    const run = await stack.knex('settlement_runs').where({ id: 'stl_finA' }).first();
    expect(run).toMatchObject({
      status: 'approved',
      approved_by: operator.email,
      gross: 345000,
      net: 341500,
    });
    expect(run.approved_at).toBeInstanceOf(Date);
    const audit = await stack
      .knex('audit_log')
      .where({ object_type: 'settlement_run', object_id: 'stl_finA' });
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'settlement_run.approved',
      actor_kind: 'operator',
      actor_id: operator.id,
      actor_name: operator.email,
      livemode: false,
      merchant_id: a.id,
    });

    // Approving again (a stale tab) is refused by the service and records nothing.
    const web = new WebClient(stack.url);
    expect((await web.signIn(operator.email, operator.password)).status).toBe(303);
    await web.get('/dashboard/finance/exceptions?env=test');
    const csrf = /name="_csrf" value="([0-9A-Za-z]{32})"/.exec(web.last!.text)![1]!;
    const again = await web.post('/dashboard/finance/runs/stl_finA/approve', { _csrf: csrf, env: 'test' });
    expect(again.status).toBe(409);
    expect(again.text).toContain('cannot be approved');
    // A run of the other environment is not found from this one.
    const other = await web.post('/dashboard/finance/runs/stl_finLive/approve', { _csrf: csrf, env: 'test' });
    expect(other.status).toBe(404);
    expect(await stack.knex('audit_log').where({ object_type: 'settlement_run' })).toHaveLength(1);
    expect((await stack.knex('settlement_runs').where({ id: 'stl_finLive' }).first()).status).toBe(
      'pending_review',
    );
  });
});

describe('bank files', () => {
  test('files with status and reason, each linking to its parsed entries', async () => {
    await page.goto(`${stack.url}/dashboard/finance/bank-files?env=test&lang=en`);
    const files = page.locator('table.bank-files tbody tr');
    await expect(files.count()).resolves.toBe(2);
    const quarantined = await text('tr[data-file="bf_fin2"]');
    expect(quarantined).toContain('quarantined');
    expect(quarantined).toContain('doctype_forbidden: a DOCTYPE is not allowed');
    await expect(text('tr[data-file="bf_fin1"]')).resolves.toMatch(/camt\.054\s+processed\s+2\s+2/);
    await page.getByRole('link', { name: `camt054_${d1.replaceAll('-', '')}_1.xml` }).click();
    await page.waitForURL(/\/bank-files\/bf_fin1/);
    const entries = await page.locator('table.entries tbody tr').allInnerTexts();
    expect(entries).toHaveLength(2);
    expect(entries[0]).toContain('ISK 7,777');
    expect(entries[0]).toContain(`AcctSvcrRef: CLM-${d1.replaceAll('-', '')}`);
    expect(entries[0]).toContain('exception');
    expect(entries[1]).toContain('credit');
    expect(entries[1]).toContain('EndToEndId: E2E-FIN-1');
    expect(entries[1]).toContain('matched (claim_payment)');
  });
});

describe('exceptions queue', () => {
  test('resolve with a payment and mark handled, each with a note, in the database and the audit log', async () => {
    await page.goto(`${stack.url}/dashboard/finance/exceptions?env=test&lang=en`);
    await expect(page.locator('table.exceptions tr[data-exception]').count()).resolves.toBe(2);
    const first = page.locator('tr[data-exception="bex_fin1"]');
    // A payment that does not exist, then one of the live environment: both refused, nothing changes.
    for (const wrong of ['pi_doesNotExist', 'pi_finLive']) {
      await first.getByLabel('Payment intent id (pi_…)').fill(wrong);
      await first.getByLabel('Note').first().fill('Wrong payment');
      await Promise.all([page.waitForNavigation(), first.getByRole('button', { name: 'Resolve' }).click()]);
      await expect(page.getByRole('alert').innerText()).resolves.toContain(
        `No payment ${wrong} in the test environment`,
      );
    }
    expect((await stack.knex('bank_exceptions').where({ id: 'bex_fin1' }).first()).status).toBe('open');

    const row = page.locator('tr[data-exception="bex_fin1"]');
    await row.getByLabel('Payment intent id (pi_…)').fill('pi_finA1');
    await row.getByLabel('Note').first().fill('Paid twice by the customer; kept on the card payment');
    await Promise.all([page.waitForNavigation(), row.getByRole('button', { name: 'Resolve' }).click()]);
    await expect(page.locator('.notice.ok').innerText()).resolves.toBe('The exception was resolved.');

    const second = page.locator('tr[data-exception="bex_fin2"]');
    await second
      .getByRole('group', { name: 'Mark as handled' })
      .getByLabel('Note')
      .fill('Customer paid 345 kr. extra; refunded by phone');
    await Promise.all([
      page.waitForNavigation(),
      second.getByRole('button', { name: 'Mark as handled' }).click(),
    ]);
    await expect(page.locator('.notice.ok').innerText()).resolves.toBe(
      'The exception was marked as handled.',
    );
    await expect(page.getByRole('heading', { name: 'Open exceptions (0)' }).count()).resolves.toBe(1);

    const resolved = await stack.knex('bank_exceptions').where({ id: 'bex_fin1' }).first();
    expect(resolved).toMatchObject({
      status: 'resolved',
      resolved_payment_intent_id: 'pi_finA1',
      resolution_note: 'Paid twice by the customer; kept on the card payment',
      resolved_by: operator.email,
    });
    expect(resolved.resolved_at).toBeInstanceOf(Date);
    const handled = await stack.knex('bank_exceptions').where({ id: 'bex_fin2' }).first();
    expect(handled).toMatchObject({
      status: 'handled',
      resolved_payment_intent_id: null,
      resolution_note: 'Customer paid 345 kr. extra; refunded by phone',
      resolved_by: operator.email,
    });
    expect(handled.resolved_at).toBeInstanceOf(Date);
    const audit = await stack.knex('audit_log').where({ object_type: 'bank_exception' }).orderBy('id');
    expect(audit).toHaveLength(2);
    expect(audit[0]).toMatchObject({
      action: 'bank_exception.resolved',
      object_id: 'bex_fin1',
      actor_kind: 'operator',
      actor_id: operator.id,
      actor_name: operator.email,
      livemode: false,
      merchant_id: a.id,
    });
    expect(audit[0].data).toMatchObject({ payment_intent: 'pi_finA1', kind: 'unmatched' });
    expect(audit[1]).toMatchObject({
      action: 'bank_exception.handled',
      object_id: 'bex_fin2',
      livemode: false,
    });

    // The audit page shows both actions with actor, object and time.
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL(/\/dashboard\/finance\/audit/);
    const records = await page.locator('table.audit tbody tr').allInnerTexts();
    expect(records[0]).toMatch(
      new RegExp(`${operator.email} \\(operator\\)\\s+bank_exception.handled\\s+bank_exception bex_fin2`),
    );
    expect(records[1]).toContain('bank_exception.resolved');
    // The live exception is untouched and not shown in test.
    expect((await stack.knex('bank_exceptions').where({ id: 'bex_finLive' }).first()).status).toBe('open');
  });

  test('a second submit of the same action changes nothing twice', async () => {
    const web = new WebClient(stack.url);
    expect((await web.signIn(operator.email, operator.password)).status).toBe(303);
    const before = await stack.knex('audit_log').count<{ count: number }[]>('* as count');
    await web.get('/dashboard/finance/exceptions?env=test');
    const csrf = /name="_csrf" value="([0-9A-Za-z]{32})"/.exec(web.last!.text)![1]!;
    const res = await web.post('/dashboard/finance/exceptions/bex_fin1/handle', {
      _csrf: csrf,
      env: 'test',
      note: 'again',
    });
    expect(res.status).toBe(409);
    expect(res.text).toContain('already resolved');
    const after = await stack.knex('audit_log').count<{ count: number }[]>('* as count');
    expect(after[0]!.count).toBe(before[0]!.count);
    expect((await stack.knex('bank_exceptions').where({ id: 'bex_fin1' }).first()).resolution_note).toBe(
      'Paid twice by the customer; kept on the card payment',
    );
  });
});

describe('access', () => {
  test("a merchant's user is refused every finance page and action", async () => {
    const web = new WebClient(stack.url);
    expect((await web.signIn(merchantUser.email, merchantUser.password)).status).toBe(303);
    for (const path of [
      '/dashboard/finance',
      '/dashboard/finance/bank-files',
      '/dashboard/finance/exceptions',
      '/dashboard/finance/audit',
    ]) {
      const res = await web.get(`${path}?env=live`);
      expect(res.status).toBe(403);
      expect(res.text).not.toContain('bex_finLive');
    }
    await web.get('/dashboard/profile');
    const csrf = /name="_csrf" value="([0-9A-Za-z]{32})"/.exec(web.last!.text)![1]!;
    const res = await web.post('/dashboard/finance/exceptions/bex_finLive/handle', {
      _csrf: csrf,
      env: 'live',
      note: 'x',
    });
    expect(res.status).toBe(403);
    expect((await stack.knex('bank_exceptions').where({ id: 'bex_finLive' }).first()).status).toBe('open');
  });

  test('an action without the CSRF token is refused', async () => {
    const web = new WebClient(stack.url);
    expect((await web.signIn(operator.email, operator.password)).status).toBe(303);
    const missing = await web.post('/dashboard/finance/exceptions/bex_finLive/handle', {
      env: 'live',
      note: 'x',
    });
    expect(missing.status).toBe(403);
    const wrong = await web.post('/dashboard/finance/runs/stl_finLive/approve', {
      env: 'live',
      _csrf: 'x'.repeat(32),
    });
    expect(wrong.status).toBe(403);
    expect((await stack.knex('bank_exceptions').where({ id: 'bex_finLive' }).first()).status).toBe('open');
    expect((await stack.knex('settlement_runs').where({ id: 'stl_finLive' }).first()).status).toBe(
      'pending_review',
    );
  });
});
