import pino, { type Logger } from 'pino';

export type { Logger };

/** Creates the process logger: JSON lines on stdout, level from LOG_LEVEL. */
export function createLogger(name: string, level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    redact: {
      paths: ['req.headers.authorization', 'req.headers["x-api-key"]', '*.secret', '*.api_key'],
      censor: '[redacted]',
    },
  });
}
