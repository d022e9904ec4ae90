import pino, { type Logger } from 'pino';
import { currentRequestId } from './request-id';
import type { Config } from './config';
import { PRETTY_LOG_OPTIONS, resolveLogFormat, type LogFormat } from './log-format';

export type { Logger };

/**
 * Creates the process logger: JSON lines on stdout (pretty ones for a person at a terminal,
 * decision 0206), level from LOG_LEVEL. A line written while a request's work is done carries its
 * `requestId` (decision 0178).
 */
export function createLogger(
  name: string,
  level = process.env.LOG_LEVEL ?? 'info',
  opts: { asyncWrites?: boolean; format?: LogFormat } = {},
): Logger {
  const options: pino.LoggerOptions = {
    name,
    level,
    base: { service: name },
    mixin: () => {
      const requestId = currentRequestId();
      return requestId === undefined ? {} : { requestId };
    },
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.secret', '*.api_key'],
      censor: '[redacted]',
    },
  };
  // A synchronous write per line cost the API a sixth of its CPU under load (bench/api-load.ts):
  // there lines are handed to the kernel in batches, and whatever is pending is flushed on exit.
  if (opts.format === 'pretty')
    return pino(
      options,
      pino.transport({ target: 'pino-pretty', options: { ...PRETTY_LOG_OPTIONS, destination: 1 } }),
    );
  return opts.asyncWrites ? pino(options, pino.destination({ dest: 1, sync: false })) : pino(options);
}

/** An entry point's logger, formatted for where its stdout goes (LOG_FORMAT, decision 0206). */
export function createProcessLogger(
  name: string,
  config: Pick<Config, 'LOG_LEVEL' | 'LOG_FORMAT'>,
  opts: { asyncWrites?: boolean } = {},
): Logger {
  const format = resolveLogFormat(config.LOG_FORMAT, process.stdout.isTTY, process.env.NODE_ENV);
  return createLogger(name, config.LOG_LEVEL, { ...opts, format });
}
