import pc from 'picocolors';
import yoctoSpinner from 'yocto-spinner';

/**
 * Terminal output. Colour only on a terminal and never with NO_COLOR (picocolors decides); a spinner
 * only when stderr is a terminal, so piped output and logs stay plain text.
 */
export const color = pc;

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
