import { CamtError } from './errors';

/** A built XML element: its text, or an object of children (an array when one repeats) and `@attributes`. */
export type XmlNode = string | { [name: string]: unknown };

// Element names that would reach Object.prototype through a plain object's keys.
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_NESTING = 100; // open elements inside one built element
const ATTRIBUTE = /([^\s=]+)\s*(=\s*(?:"([^"]*)"|'([^']*)'))?/g;

interface Frame {
  name: string;
  attributes: Record<string, string> | undefined;
  children: Record<string, unknown> | undefined;
  text: string | undefined;
}

/**
 * Builds plain objects from the tokens of one element as a scanner meets them, so the element is
 * read in the same pass that finds it. The shape is the one the readers (`child`, `text`, `all`)
 * expect, and that fast-xml-parser produced before (`removeNSPrefix`, `trimValues`, no entity or
 * value conversion): one key per child element, an array when it repeats, `@`-prefixed attributes
 * (namespace declarations dropped), a text-only element as its trimmed text, entity references
 * left as written for `text()` to decode or refuse. Comments are skipped without splitting the text
 * around them; text on either side of a processing instruction or CDATA section is trimmed apart.
 */
export class TreeBuilder {
  // Open elements are frames[0 … open): frames are reused, an entry's ~50 elements allocate none.
  private readonly frames: Frame[] = [];
  private opened = 0;
  private pending = ''; // character data since the last tag

  /** Character data between markup, as written. */
  text(raw: string): void {
    this.pending = this.pending === '' ? raw : this.pending + raw;
  }

  /** A CDATA section: its content is text, untrimmed. */
  cdata(raw: string): void {
    this.flushText();
    if (this.opened > 0) {
      const frame = this.frames[this.opened - 1]!;
      frame.text = (frame.text ?? '') + newlines(raw);
    }
  }

  /** A processing instruction: ignored, but it ends the text before it. */
  instruction(): void {
    this.flushText();
  }

  /**
   * A start tag (`attributes`: what follows the name, without a self-closing `/`). Returns the
   * element's value when it is self-closing and outermost, else undefined.
   */
  open(name: string, attributes: string, selfClosing: boolean): XmlNode | undefined {
    this.flushText();
    if (FORBIDDEN_NAMES.has(name)) throw new CamtError('malformed', `an element named ${name}`);
    if (!selfClosing && this.opened > MAX_NESTING) {
      throw new CamtError('malformed', `elements nested more than ${MAX_NESTING} deep`);
    }
    // A self-closing element uses the free frame above the open ones without opening it.
    let frame = this.frames[this.opened];
    if (frame === undefined) {
      frame = { name, attributes: undefined, children: undefined, text: undefined };
      this.frames.push(frame);
    }
    frame.name = name;
    frame.attributes = attributes === '' ? undefined : attributesOf(attributes);
    frame.children = undefined;
    frame.text = undefined;
    if (selfClosing) return this.finish(frame);
    this.opened++;
    return undefined;
  }

  /**
   * An empty element standing for one cut out and read on its own: `''` in its parent, as its
   * `<Name/>` placeholder reads.
   */
  placeholder(name: string): void {
    this.open(name, '', true);
  }

  /** An end tag (the scanner has matched it). Returns the element's value when it is the outermost. */
  close(): XmlNode | undefined {
    this.flushText();
    if (this.opened === 0) throw new CamtError('malformed', 'an end tag without a start tag');
    return this.finish(this.frames[--this.opened]!);
  }

  /** Open elements. */
  get depth(): number {
    return this.opened;
  }

  private finish(frame: Frame): XmlNode | undefined {
    let value: XmlNode;
    if (frame.children === undefined) {
      value = frame.text ?? '';
    } else {
      value = frame.children;
      if (frame.text !== undefined) value['#text'] = frame.text;
    }
    const attributes = frame.attributes;
    if (attributes !== undefined) {
      value =
        typeof value === 'object'
          ? Object.assign(value, attributes)
          : value === ''
            ? { ...attributes }
            : { '#text': value, ...attributes };
    }
    this.pending = '';
    if (this.opened === 0) return value;
    const parent = this.frames[this.opened - 1]!;
    const children = (parent.children ??= {});
    const previous = children[frame.name];
    if (previous === undefined) children[frame.name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else children[frame.name] = [previous, value];
    return undefined;
  }

  private flushText(): void {
    const raw = this.pending;
    if (raw === '') return;
    this.pending = '';
    if (this.opened === 0) return;
    const frame = this.frames[this.opened - 1]!;
    const value = newlines(raw).trim();
    if (value !== '') frame.text = frame.text === undefined ? value : frame.text + value;
  }
}

// Attribute lists repeat (every amount's ` Ccy="ISK"`), and a frame's attributes are only ever
// copied from, never changed, so one read object serves every occurrence.
const knownAttributes = new Map<string, Record<string, string> | undefined>();

function attributesOf(source: string): Record<string, string> | undefined {
  const known = knownAttributes.get(source);
  if (known !== undefined || source.length > 64) return known ?? readAttributes(source);
  const read = readAttributes(source);
  if (knownAttributes.size < 256) knownAttributes.set(source, read);
  return read;
}

/** `name="value"` pairs as `@name` keys, namespace prefixes and declarations dropped, values trimmed. */
function readAttributes(source: string): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const match of source.matchAll(ATTRIBUTE)) {
    const value = match[3] ?? match[4];
    if (value === undefined) continue;
    const parts = match[1]!.split(':');
    if (parts[0] === 'xmlns') continue;
    const name = parts.length === 2 ? parts[1]! : match[1]!;
    if (name === '') continue;
    (out ??= {})[`@${name}`] = newlines(value).trim();
  }
  return out;
}

/** XML's end-of-line handling: CR LF and lone CR read as LF. */
function newlines(raw: string): string {
  return raw.includes('\r') ? raw.replace(/\r\n?/g, '\n') : raw;
}
