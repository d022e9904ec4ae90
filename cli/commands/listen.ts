import { SkilConnectionError, type Skil, type SkilEvent } from '@skil/sdk';
import type { Command } from 'commander';
import { cursorPath, readCursor, writeCursor } from '../config';
import { baseUrlOf, clientOf, CliError, type GlobalOptions } from '../context';
import { color } from '../output';
import { splitList } from './webhooks';

interface ListenOptions {
  forwardTo: string;
  events?: string;
  since?: string;
  interval: string;
}

/**
 * `skil listen --forward-to URL`: reads the merchant's test events from the ledger (GET /v1/events,
 * spec §4.4, §6.5) and posts each, unsigned (§6.3.4), to a local URL.
 *
 * Its place is the id of the last event the local server answered, saved after each answer, so a
 * restart (after a crash, a sleep, a lost network) continues right after it and skips nothing. The
 * ledger shows an event only once every earlier-stamped one is visible, so paging by id loses none.
 * An event whose answer was not yet saved when the process died is sent again: delivery is at least
 * once, with at most the one in-flight event repeated, which the receiver's deduplication on the
 * event `id` absorbs (§6.4.4).
 */
export function registerListen(program: Command, globals: () => GlobalOptions): void {
  program
    .command('listen')
    .description('Forward test-mode events to a local URL, resuming where it stopped')
    .requiredOption('--forward-to <url>', 'local URL to POST each event to')
    .option('--events <types>', 'comma-separated event types to forward (default: all)')
    .option('--since <time>', 'replay history from an ISO time or a duration ago (e.g. 2h, 30m)')
    .option('--interval <ms>', 'how often to poll the ledger when idle', '1000')
    .action(async (opts: ListenOptions) => {
      const g = globals();
      const skil = clientOf(g);
      const forwardTo = parseUrl(opts.forwardTo);
      const only = opts.events ? new Set(splitList(opts.events)) : null;
      const interval = Math.max(100, Number(opts.interval) || 1000);
      const file = cursorPath(g.profile, baseUrlOf(g));

      let cursor: { startingAfter: string } | { after: string };
      const saved = readCursor(file);
      if (opts.since !== undefined) cursor = { after: sinceTime(opts.since) };
      else if (saved !== null) cursor = { startingAfter: saved };
      else cursor = { after: new Date().toISOString() };
      process.stderr.write(
        `Ready. Forwarding test events to ${forwardTo} (${
          'startingAfter' in cursor ? `resuming after ${cursor.startingAfter}` : `from ${cursor.after}`
        }). Ctrl-C to stop.\n`,
      );

      for (;;) {
        const page = await nextPage(skil, cursor);
        if (page === null || page.data.length === 0) {
          await sleep(interval);
          continue;
        }
        for (const event of page.data) {
          if (only === null || only.has(event.type)) await forward(forwardTo, event);
          writeCursor(file, event.id);
          cursor = { startingAfter: event.id };
        }
      }
    });
}

async function nextPage(skil: Skil, cursor: { startingAfter: string } | { after: string }) {
  try {
    return await skil.events.list({
      limit: 100,
      ...('startingAfter' in cursor ? { starting_after: cursor.startingAfter } : { after: cursor.after }),
    });
  } catch (err) {
    if (!(err instanceof SkilConnectionError)) throw err;
    process.stderr.write(`${color.yellow('!')} ${err.message}; trying again\n`);
    return null;
  }
}

/** Posts one event; waits and tries again while the local server is not answering at all. */
async function forward(url: string, event: SkilEvent): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-event': event.type,
          'x-service-delivery-id': `cli_${event.id}`,
        },
        body: JSON.stringify(event),
        redirect: 'manual',
        signal: AbortSignal.timeout(30_000),
      });
      await res.arrayBuffer();
      const status = res.ok ? color.green(String(res.status)) : color.red(String(res.status));
      process.stdout.write(`${event.created_at}  ${event.type}  ${event.id}  → ${status}\n`);
      return;
    } catch (err) {
      const reason = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      process.stderr.write(`${color.yellow('!')} ${url} did not answer (${reason}); ${event.id} waits\n`);
      await sleep(Math.min(5_000, 250 * 2 ** attempt));
    }
  }
}

function parseUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.toString();
  } catch {
    // reported below
  }
  throw new CliError(
    `--forward-to must be an http(s) URL, e.g. http://localhost:4242/webhook (got '${value}')`,
  );
}

/** `--since`: an ISO time, or a duration ago: 90s, 30m, 2h, 7d. */
function sinceTime(value: string): string {
  const ago = /^(\d+)([smhd])$/.exec(value);
  if (ago) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[ago[2] as 's' | 'm' | 'h' | 'd'];
    return new Date(Date.now() - Number(ago[1]) * unit).toISOString();
  }
  const at = Date.parse(value);
  if (Number.isNaN(at))
    throw new CliError(`--since must be an ISO time or a duration like 2h (got '${value}')`);
  return new Date(at).toISOString();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
