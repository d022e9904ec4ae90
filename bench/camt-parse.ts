/**
 * Bare camt.054 parse throughput and peak memory: the parse on its own, without the transport, store
 * and matching that bench/reconcile.ts measures with it (decisions 0080, 0180).
 *
 * Generates camt.054 credit notifications of claim payments with 100,000 and 1,000,000 entries to a
 * temp dir (streamed, never built in memory), then parses each in a fresh child process so that the
 * peak RSS of one run does not hide another's: the baseline (the scanner, then fast-xml-parser per
 * element, as before decision 0180), parseCamt's single pass, and parseCamt with 2 worker threads.
 * Prints one JSON line per run; exits non-zero unless every run read every entry and verified the totals.
 *
 *   npx tsx bench/camt-parse.ts [sizes…]      e.g. npx tsx bench/camt-parse.ts 100000 1000000
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { parseCamt } from '../adapters/banks/camt';
import { parseCamtBaseline } from './camt-parse-baseline';

const READERS = ['baseline', 'single-pass', 'single-pass-2-workers'] as const;
type Reader = (typeof READERS)[number];

async function read(path: string, reader: Reader): Promise<{ entries: number; verified: boolean }> {
  const source = createReadStream(path, { highWaterMark: 256 * 1024 });
  if (reader === 'baseline') return parseCamtBaseline(source);
  let entries = 0;
  let verified = false;
  for await (const event of parseCamt(source, { workers: reader === 'single-pass' ? 0 : 2 })) {
    if (event.kind === 'entry') entries++;
    if (event.kind === 'statement-end') verified = event.totals.checks.every((c) => c.ok);
  }
  return { entries, verified };
}

/** Writes a camt.054.001.08 with `entries` ISK claim payments; returns the expected totals. */
export async function writeCamt054(path: string, entries: number): Promise<{ sum: bigint }> {
  const out = createWriteStream(path);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  let sum = 0n;
  const amounts: number[] = [];
  for (let i = 0; i < entries; i++) {
    const amount = 1000 + ((i * 7919) % 250000);
    amounts.push(amount);
    sum += BigInt(amount);
  }
  await write(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08">\n<BkToCstmrDbtCdtNtfctn>\n` +
      `<GrpHdr><MsgId>BENCH-${entries}</MsgId><CreDtTm>2026-11-21T06:00:00+00:00</CreDtTm></GrpHdr>\n` +
      `<Ntfctn><Id>NTF-${entries}</Id><ElctrncSeqNb>1</ElctrncSeqNb><CreDtTm>2026-11-21T06:00:00+00:00</CreDtTm>` +
      `<Acct><Id><IBAN>IS140159260076545510730339</IBAN></Id><Ccy>ISK</Ccy></Acct>` +
      `<TxsSummry><TtlNtries><NbOfNtries>${entries}</NbOfNtries><Sum>${sum}</Sum>` +
      `<TtlNetNtryAmt>${sum}</TtlNetNtryAmt><CdtDbtInd>CRDT</CdtDbtInd></TtlNtries></TxsSummry>\n`,
  );
  for (let i = 0; i < entries; i++) {
    const n = String(i).padStart(9, '0');
    await write(
      `<Ntry><NtryRef>${i + 1}</NtryRef><Amt Ccy="ISK">${amounts[i]}</Amt><CdtDbtInd>CRDT</CdtDbtInd>` +
        `<Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-11-20</Dt></BookgDt><ValDt><Dt>2026-11-20</Dt></ValDt>` +
        `<AcctSvcrRef>20261120CLM${n}</AcctSvcrRef>` +
        `<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>DMCT</SubFmlyCd></Fmly></Domn></BkTxCd>` +
        `<NtryDtls><TxDtls><Refs><AcctSvcrRef>20261120CLM${n}T</AcctSvcrRef><EndToEndId>E2E${n}</EndToEndId></Refs>` +
        `<Amt Ccy="ISK">${amounts[i]}</Amt><CdtDbtInd>CRDT</CdtDbtInd>` +
        `<RltdPties><Dbtr><Pty><Nm>Payer ${n}</Nm><Id><PrvtId><Othr><Id>0101302989</Id></Othr></PrvtId></Id></Pty></Dbtr></RltdPties>` +
        `<RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Prtry>TILV_U</Prtry></CdOrPrtry></Tp><Ref>${n}0000000</Ref></CdtrRefInf></Strd></RmtInf>` +
        `</TxDtls></NtryDtls></Ntry>\n`,
    );
  }
  await write(`</Ntfctn>\n</BkToCstmrDbtCdtNtfctn>\n</Document>\n`);
  out.end();
  await once(out, 'finish');
  return { sum };
}

/** Parses one file, sampling RSS every 100 ms; the child-process half of the benchmark. */
async function measure(path: string, reader: Reader, expected: number): Promise<void> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 100);
  const started = process.hrtime.bigint();
  const cpuBefore = process.cpuUsage();
  const { entries, verified } = await read(path, reader);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  // CPU time of the whole process (all threads): what the parse costs, whatever else the machine runs.
  const cpu = process.cpuUsage(cpuBefore);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss, process.resourceUsage().maxRSS * 1024);
  console.log(
    JSON.stringify({
      bench: 'camt-parse',
      date: new Date().toISOString(),
      reader,
      entries,
      fileMB: Math.round(statSync(path).size / 1e6),
      seconds: Number(seconds.toFixed(2)),
      entriesPerSecond: Math.round(entries / seconds),
      cpuSeconds: Number(cpuSeconds.toFixed(2)),
      entriesPerCpuSecond: Math.round(entries / cpuSeconds),
      loadAverage: Number(loadavg()[0]!.toFixed(1)),
      peakRssMB: Math.round(peak / 1e6),
      totalsVerified: verified,
    }),
  );
  if (entries !== expected || !verified) {
    console.error(
      `camt-parse: ${reader} read ${entries} of ${expected} entries, totals verified: ${verified}`,
    );
    process.exit(1);
  }
}

async function main(): Promise<void> {
  if (process.argv[2] === '--measure') {
    return measure(process.argv[3]!, process.argv[4] as Reader, Number(process.argv[5]));
  }
  const sizes = process.argv.slice(2).map(Number);
  const dir = mkdtempSync(join(tmpdir(), 'camt-bench-'));
  try {
    for (const size of sizes.length > 0 ? sizes : [100_000, 1_000_000]) {
      const file = join(dir, `camt054-${size}.xml`);
      await writeCamt054(file, size);
      for (const reader of READERS) {
        execFileSync(
          process.execPath,
          [...process.execArgv, __filename, '--measure', file, reader, String(size)],
          {
            stdio: 'inherit',
          },
        );
      }
      rmSync(file);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
