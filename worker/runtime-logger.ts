import { DefaultLogger, Runtime, type LogLevel } from '@temporalio/worker';
import type { Logger } from '../stack/logger';

const TEMPORAL_LEVEL: Record<string, LogLevel> = {
  trace: 'TRACE',
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
};

/**
 * Routes the Temporal SDK's logger (its own lines, workflow `log` through the logger sink, and the
 * activity context's `log`) into the worker's pino logger, so they are JSON lines like the rest,
 * with the workflow's or activity's attributes and the request id (decision 0178). Installed once,
 * before the worker's connections are made.
 */
export function installRuntimeLogger(log: Logger): void {
  const level = TEMPORAL_LEVEL[log.level] ?? 'ERROR';
  Runtime.install({
    logger: new DefaultLogger(level, ({ level: entryLevel, message, meta }) => {
      const method = entryLevel === 'TRACE' ? 'trace' : (entryLevel.toLowerCase() as Lowercase<LogLevel>);
      log[method]({ ...meta }, message);
    }),
  });
}
