import { XMLParser } from 'fast-xml-parser';
import { CamtError } from './errors';

/** A parsed XML element as fast-xml-parser returns it: text, or an object of children and `@attributes`. */
export type XmlNode = string | { [name: string]: unknown };

// Entities stay unexpanded (no DTD can reach here: the scanner refuses DOCTYPE) and values stay
// strings: "0012" must not become 12, nor "10.10" a float. preserveOrder output converted by
// toPlain() below costs ~17 % less than fast-xml-parser's own conversion to plain objects, and
// entry parsing is most of a bank file's parse time.
const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  removeNSPrefix: true,
  processEntities: false,
  htmlEntities: false,
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  // Callbacks get the path matcher instead of a path string built for every tag: 1.5x faster.
  jPath: false,
});

/** Parses one small, already delimited element (an entry, a balance) into a plain object. */
export function parseFragment(xml: string, where: string): Record<string, unknown> {
  let ordered: unknown;
  try {
    ordered = parser.parse(xml);
  } catch (err) {
    throw new CamtError('malformed', `not well-formed XML: ${(err as Error).message}`, where);
  }
  const plain = toPlain(ordered as OrderedNode[]);
  return typeof plain === 'string' ? {} : plain;
}

type OrderedNode = Record<string, unknown>;

/**
 * fast-xml-parser's ordered form (`[{ Tag: [children], ':@': {attributes} }, { '#text': … }]`) as
 * the usual plain object: one key per child element, an array when it repeats, `@`-prefixed
 * attributes, and a text-only element as its string.
 */
function toPlain(nodes: OrderedNode[]): string | Record<string, unknown> {
  let text: string | undefined;
  let out: Record<string, unknown> | undefined;
  for (const node of nodes) {
    for (const key in node) {
      if (key === ':@') continue;
      if (key === '#text') {
        // Text split by a comment or CDATA section arrives as several nodes.
        text = (text ?? '') + String(node[key]);
        continue;
      }
      let value = toPlain(node[key] as OrderedNode[]);
      const attributes = node[':@'] as Record<string, unknown> | undefined;
      if (attributes !== undefined) {
        value =
          typeof value === 'object'
            ? Object.assign(value, attributes)
            : value === ''
              ? { ...attributes }
              : { '#text': value, ...attributes };
      }
      out ??= {};
      const previous = out[key];
      if (previous === undefined) out[key] = value;
      else if (Array.isArray(previous)) previous.push(value);
      else out[key] = [previous, value];
    }
  }
  if (out === undefined) return text ?? '';
  if (text !== undefined) out['#text'] = text;
  return out;
}

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
