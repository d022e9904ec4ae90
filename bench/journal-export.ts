import { readFile } from 'node:fs/promises';
import { withStack } from './harness';
import { spawnApi } from '../test/helpers/api-process';

/**
 * The journal's CSV export (decisions 0239, 0232) of a period of 1,000,000 captured payments from a
 * separate API process (`api/main.ts`, as `npm start` runs it): how far its resident memory rises
 * while the export streams. The payments are written straight into the database, every one
 * captured in January–February 2026 with a fee (what is measured is the export, not how payments
 * are made); each is an entry of three lines (Skil balance, payment fees, receivables). The client
 * reads the download as it arrives and checks that every row is there and that debits equal credits.
 *
 * Memory is the API process's own, from /proc: VmRSS sampled every 10 ms during the export against
 * VmRSS just before, and VmHWM before and after. Exits non-zero when the sampled peak grew by 50 MB
 * or more, a row is missing, or the journal does not balance.
 *
 * Run: npx tsx bench/journal-export.ts [payments=1000000]
 */
const COUNT = Number(process.argv[2] ?? 1_000_000);
const LIMIT_MB = 50;
const PERIOD = '2026-01';

async function memoryKb(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

void withStack({ worker: false }, async (stack) => {
  const m = await stack.merchant('Dagbók ehf.');
  const started = Date.now();
  // 59 days of January–February 2026 hold 5,097,600 seconds: one payment every 5 s fits a million.
  const step = Math.max(1, Math.floor(5_097_600 / COUNT));
  await stack.knex.raw(
    `insert into payment_intents (id, merchant_id, livemode, amount, status, amount_captured, fee_amount,
       captured_at, description, created_at)
     select 'pi_jbench' || lpad(i::text, 8, '0'), :m, false, 1000 + i % 50000, 'succeeded', 1000 + i % 50000,
            round((1000 + i % 50000) * 0.015), timestamptz '2026-01-01' + make_interval(secs => i * :step),
            'Vara ' || i, timestamptz '2026-01-01' + make_interval(secs => i * :step)
       from generate_series(0, :n - 1) as i`,
    { m: m.id, n: COUNT, step },
  );
  await stack.knex.raw('analyze payment_intents');
  console.error(`${COUNT} payments written in ${Date.now() - started} ms`);

  const api = await spawnApi(stack);
  try {
    const get = (path: string) =>
      fetch(`${api.url}${path}`, { headers: { authorization: `Bearer ${m.testKey}` } });
    // Warm: a page of the journal and the VAT period's CSV of another period, so code loaded once
    // is not counted as the export's.
    await (await get(`/v1/reports/journal?period=${PERIOD}&limit=100`)).text();
    await (await get('/v1/reports/journal.csv?period=2025-01')).text();
    const pid = api.child.pid!;
    const before = await memoryKb(pid);
    let peakRss = before.rss;
    const sampler = setInterval(() => {
      void memoryKb(pid).then(
        (now) => (peakRss = Math.max(peakRss, now.rss)),
        () => undefined,
      );
    }, 10);
    const t0 = Date.now();
    const res = await get(`/v1/reports/journal.csv?period=${PERIOD}`);
    let rows = -1;
    let bytes = 0;
    let balance = 0;
    let rest = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\r\n');
      rest = lines.pop()!;
      for (const line of lines) {
        rows++;
        if (rows === 0) continue;
        const cells = line.split(',');
        balance += Number(cells.at(-2)) - Number(cells.at(-1));
      }
    }
    const seconds = (Date.now() - t0) / 1000;
    clearInterval(sampler);
    const after = await memoryKb(pid);
    const growthMb = (kb: number) => Math.round(((kb - before.rss) / 1024) * 10) / 10;
    const result = {
      bench: 'journal-export',
      payments: COUNT,
      status: res.status,
      rows,
      expected_rows: COUNT * 3,
      debit_minus_credit: balance,
      mb: Math.round(bytes / 1024 / 102.4) / 10,
      seconds,
      rows_per_s: Math.round(rows / seconds),
      rss_before_mb: Math.round(before.rss / 102.4) / 10,
      rss_peak_growth_mb: growthMb(peakRss),
      hwm_before_mb: Math.round(before.hwm / 102.4) / 10,
      hwm_after_mb: Math.round(after.hwm / 102.4) / 10,
    };
    console.log(JSON.stringify(result));
    const failed =
      res.status !== 200 || rows !== COUNT * 3 || balance !== 0 || result.rss_peak_growth_mb >= LIMIT_MB;
    if (failed) {
      console.error('FAILED', result);
      process.exitCode = 1;
    }
  } finally {
    await api.stop();
  }
});
