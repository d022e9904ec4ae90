import { posix, resolve, sep } from 'node:path';

/**
 * Maps a client's SFTP path onto the served root, or returns undefined when it would leave it.
 * The client sees the root as `/`; `..` segments are resolved against that virtual root first, so
 * `/../etc/passwd` and `inbox/../../x` both stay refused rather than clamped to something else.
 */
export function confinePath(
  rootDir: string,
  clientPath: string,
): { virtual: string; real: string } | undefined {
  if (clientPath.includes('\0')) return undefined;
  const absolute = clientPath.startsWith('/') ? clientPath : `/${clientPath}`;
  const segments: string[] = [];
  for (const segment of absolute.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) return undefined;
      segments.pop();
      continue;
    }
    segments.push(segment);
  }
  const virtual = `/${segments.join('/')}`;
  const root = resolve(rootDir);
  const real = resolve(root, ...segments);
  if (real !== root && !real.startsWith(root + sep)) return undefined;
  return { virtual: posix.normalize(virtual), real };
}
