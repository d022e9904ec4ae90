import { prettyFactory } from 'pino-pretty';
import { PRETTY_LOG_OPTIONS } from './log-format';

/** Turns one JSON log line (a child process's) into a pretty one; other lines pass unchanged. */
export function createLinePrettifier(): (line: string) => string {
  const pretty = prettyFactory(PRETTY_LOG_OPTIONS);
  return (line) => {
    if (!line.startsWith('{')) return line + '\n';
    try {
      return pretty(JSON.parse(line) as object);
    } catch {
      return line + '\n';
    }
  };
}
