import pino, { type Logger } from 'pino';
import { currentRequestId } from './request-id';

export type { Logger };

/**
 * Creates the process logger: JSON lines on stdout, level from LOG_LEVEL. A line written while a
 * request's work is done carries its `requestId` (decision 0178).
 */
export function createLogger(
  name: string,
  level = process.env.LOG_LEVEL ?? 'info',
  opts: { asyncWrites?: boolean } = {},
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
  return opts.asyncWrites ? pino(options, pino.destination({ dest: 1, sync: false })) : pino(options);
}
