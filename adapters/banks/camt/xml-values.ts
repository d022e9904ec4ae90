import { CamtError } from './errors';

// Readers over the plain objects that xml-tree.ts builds (see XmlNode there).

/** Always a list: an element that occurs once parses as a value, several times as an array. */
export function list(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

/** Every occurrence of the child element `name` below `node`. */
export function all(node: unknown, name: string): unknown[] {
  return list(child(node, name));
}

/** The child element `name` of a node, if the node is an element with that child. */
export function child(node: unknown, name: string): unknown {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return undefined;
  return (node as Record<string, unknown>)[name];
}

/** The text at `path` below `node` (first occurrence at each step), entity references decoded. */
export function text(node: unknown, ...path: string[]): string | undefined {
  let current: unknown = node;
  for (const name of path) {
    current = child(current, name);
    if (Array.isArray(current)) current = current[0];
  }
  if (typeof current === 'string') return decodeXmlText(current);
  const inner = child(current, '#text');
  if (typeof inner === 'string') return decodeXmlText(inner);
  if (typeof inner === 'number') return String(inner);
  return undefined;
}

/** An attribute of the element at `path` below `node`. */
export function attribute(node: unknown, name: string, ...path: string[]): string | undefined {
  let current: unknown = node;
  for (const step of path) {
    current = child(current, step);
    if (Array.isArray(current)) current = current[0];
  }
  const value = child(current, `@${name}`);
  return typeof value === 'string' ? value : undefined;
}

const REFERENCE = /&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9._-]*);/g;
const PREDEFINED: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Decodes XML's five predefined entities and character references. Any other named reference could
 * only come from a DTD, which bank files may not have, so it is refused rather than left as text.
 */
export function decodeXmlText(raw: string): string {
  if (!raw.includes('&')) return raw;
  return raw.replace(REFERENCE, (_match, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      if (!Number.isFinite(code) || code > 0x10ffff) {
        throw new CamtError('malformed', `invalid character reference &${ref};`);
      }
      return String.fromCodePoint(code);
    }
    const known = PREDEFINED[ref];
    if (known === undefined) throw new CamtError('entity_forbidden', `undeclared entity &${ref};`);
    return known;
  });
}
