import { isBankingDay } from '../../../domain/banking-days';
import type { Logger } from '../../../stack/logger';
import type { DayCloseResult } from './close-day';

/**
 * Closes each Iceland banking day automatically at `hourUtc` (Iceland keeps UTC) while the process
 * runs, as a bank's end-of-day run would. Checks once a minute; a day already closed (by hand,
 * through `/_sim/bank/close-day`) is a no-op, so the two never publish twice. Returns a stop function.
 */
export function scheduleDailyClose(opts: {
  closeDay: (date?: string) => Promise<DayCloseResult>;
  isClosed: (date: string) => boolean;
  now?: () => Date;
  hourUtc?: number;
  log: Logger;
}): () => void {
  const now = opts.now ?? (() => new Date());
  const hour = opts.hourUtc ?? 16;
  let running = false;
  const tick = () => {
    const at = now();
    const date = at.toISOString().slice(0, 10);
    if (running || at.getUTCHours() < hour || !isBankingDay(date) || opts.isClosed(date)) return;
    running = true;
    opts
      .closeDay(date)
      .catch((err: unknown) => opts.log.error({ err, date }, 'simulated bank: automatic day close failed'))
      .finally(() => {
        running = false;
      });
  };
  const timer = setInterval(tick, 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
