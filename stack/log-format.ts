import type { PrettyOptions } from 'pino-pretty';

/** How a process writes its log lines (decision 0206). */
export type LogFormat = 'json' | 'pretty';

/** The setting: `auto` chooses by where the lines go. */
export type LogFormatSetting = 'auto' | LogFormat;

/**
 * A person at a terminal during development reads pretty lines; anything else (a pipe, a file, a
 * log shipper) and production always get JSON, since there lines are read by machines.
 */
export function resolveLogFormat(
  setting: LogFormatSetting,
  stdoutIsTty: boolean | undefined,
  nodeEnv: string | undefined,
): LogFormat {
  if (setting !== 'auto') return setting;
  return stdoutIsTty === true && nodeEnv !== 'production' ? 'pretty' : 'json';
}

// One line per record, the time of day, the process's name beside the level; pid and host say
// nothing on one machine. pino-pretty is loaded only where lines are made pretty.
export const PRETTY_LOG_OPTIONS: PrettyOptions = {
  colorize: true,
  singleLine: true,
  translateTime: 'SYS:HH:MM:ss',
  ignore: 'pid,hostname,service,name',
  messageFormat: '{if name}({name}) {end}{msg}',
};

/** What a part logs once it serves: `npm start` prints its banner after both. */
export const READY_MESSAGES = { api: 'API listening', worker: 'worker running' } as const;
