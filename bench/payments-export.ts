import { readFile } from 'node:fs/promises';
import { withStack } from './harness';
import { spawnApi } from '../test/helpers/api-process';
import { WebClient, createMerchantUser } from '../test/helpers/accounts';

/**
 * The payment list's CSV export (decision 0232) of 100,000 payments from a separate API process
 * (`api/main.ts`, as `npm start` runs it): how far its resident memory rises while the export
 * streams. The payments are written straight into the database (what is measured is the export,
 * not how payments are made), a tenth of them described like spreadsheet formulas; the client
 * reads the download as it arrives and checks every row.
 *
 * Memory is the API process's own, from /proc: VmRSS sampled every 10 ms during the export against
 * VmRSS just before, and VmHWM (the kernel's peak since start) before and after. Exits non-zero
 * when the sampled peak grew by 50 MB or more, or a row is missing or unescaped.
 *
 * Run: npx tsx bench/payments-export.ts [payments=100000]
 */
const COUNT = Number(process.argv[2] ?? 100_000);
const LIMIT_MB = 50;

async function memoryKb(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)![1]);
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

void withStack({ worker: false }, async (stack) => {
  const m = await stack.merchant('Útflutningur ehf.');
  const started = Date.now();
  await stack.knex.raw(
    `insert into payment_intents (id, merchant_id, livemode, amount, status, amount_captured, fee_amount,
       captured_at, description, created_at)
     select 'pi_bench' || lpad(i::text, 8, '0'), :m, false, 1000 + i, 'succeeded', 1000 + i,
            round((1000 + i) * 0.015), now() - make_interval(secs => i),
            case when i % 10 = 0 then '=HYPERLINK("http://example.test/' || i || '")' else 'Vara ' || i end,
            now() - make_interval(secs => i)
       from generate_series(1, :n) as i`,
    { m: m.id, n: COUNT },
  );
  await stack.knex.raw('analyze payment_intents');
  console.error(`${COUNT} payments written in ${Date.now() - started} ms`);

  const api = await spawnApi(stack);
  try {
    const user = await createMerchantUser(stack.knex, m.id);
    const web = new WebClient(api.url);
    await web.signIn(user.email, user.password);
    // Warm: the list page and a small export, so code loaded once is not counted as the export's.
    await web.get('/dashboard/payments');
    await web.get('/dashboard/payments/export.csv?max=1010');
    const pid = api.child.pid!;
    global.gc?.();
    const before = await memoryKb(pid);
    let peakRss = before.rss;
    const sampler = setInterval(() => {
      void memoryKb(pid).then(
        (now) => (peakRss = Math.max(peakRss, now.rss)),
        () => undefined,
      );
    }, 10);
    const t0 = Date.now();
    const res = await fetch(`${api.url}/dashboard/payments/export.csv`, {
      headers: { cookie: [...web.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    });
    let rows = -1;
    let unescaped = 0;
    let bytes = 0;
    let rest = '';
    const decoder = new TextDecoder();
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength;
      const lines = (rest + decoder.decode(chunk, { stream: true })).split('\r\n');
      rest = lines.pop()!;
      for (const line of lines) {
        rows++;
        if (/,"?=/.test(line)) unescaped++;
      }
    }
    const seconds = (Date.now() - t0) / 1000;
    clearInterval(sampler);
    const after = await memoryKb(pid);
    const growthMb = (kb: number) => Math.round(((kb - before.rss) / 1024) * 10) / 10;
    const result = {
      bench: 'payments-export',
      payments: COUNT,
      status: res.status,
      rows,
      unescaped,
      mb: Math.round(bytes / 1024 / 102.4) / 10,
      seconds,
      rows_per_s: Math.round(rows / seconds),
      rss_before_mb: Math.round(before.rss / 102.4) / 10,
      rss_peak_growth_mb: growthMb(peakRss),
      // The kernel's peak since the process started: unchanged means the export never exceeded it.
      hwm_before_mb: Math.round(before.hwm / 102.4) / 10,
      hwm_after_mb: Math.round(after.hwm / 102.4) / 10,
    };
    console.log(JSON.stringify(result));
    const failed =
      res.status !== 200 || rows !== COUNT || unescaped !== 0 || result.rss_peak_growth_mb >= LIMIT_MB;
    if (failed) {
      console.error('FAILED', result);
      process.exitCode = 1;
    }
  } finally {
    await api.stop();
  }
});
