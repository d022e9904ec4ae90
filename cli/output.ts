import { createColors } from 'picocolors';
import yoctoSpinner from 'yocto-spinner';

/**
 * Terminal output. Colour when FORCE_COLOR asks for it or both output streams are a terminal, never
 * with NO_COLOR. Decided here rather than by picocolors' own rule, which also colours whenever a `CI`
 * variable is set: a CI log or a script reading our output would get escape codes in URLs and keys.
 * A spinner only when stderr is a terminal, so piped output and logs stay plain text.
 */
export function colorEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.NO_COLOR) return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false') return true;
  return Boolean(process.stdout.isTTY && process.stderr.isTTY) && env.TERM !== 'dumb';
}

export const color = createColors(colorEnabled());

export function spinner(text: string): { stop: (final?: string) => void } {
  if (!process.stderr.isTTY || process.env.NO_COLOR) {
    process.stderr.write(`${text}\n`);
    return { stop: (final) => final && process.stderr.write(`${final}\n`) };
  }
  const s = yoctoSpinner({ text, stream: process.stderr }).start();
  return {
    stop: (final) => {
      if (final) s.success(final);
      else s.stop();
    },
  };
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}
