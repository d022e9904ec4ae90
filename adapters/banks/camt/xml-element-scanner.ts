import { CamtError } from './errors';
import { TreeBuilder, type XmlNode } from './xml-tree';

/** What the scanner reports: structure outside captured elements, and each captured element's text. */
export type ScanEvent =
  | { type: 'start'; path: readonly string[]; tag: string }
  | { type: 'end'; path: readonly string[] }
  | { type: 'element'; path: readonly string[]; xml: string; node?: XmlNode };

export interface ScanOptions {
  /** Whether the element at `path` (local names, root first) is returned whole as one `element` event. */
  capture(path: readonly string[]): boolean;
  /** Largest captured element, in characters; a bigger one is refused instead of buffered. */
  maxElementChars: number;
  /** `start`/`end` events are reported down to this depth only (the root is depth 1). */
  reportDepth: number;
  /**
   * Whether an element inside a captured one is cut out and returned alone, before its enclosing
   * element: a lump-sum `<Ntry>` then arrives as its many `<TxDtls>` and a small shell in which each
   * one is an empty placeholder element, so no element of the file is ever held or parsed whole.
   */
  split?(path: readonly string[]): boolean;
  /**
   * Whether each `element` event also carries the element read into plain objects (`node`), built
   * from the tokens this scan already visits, so no element is parsed a second time.
   */
  build?: boolean;
}

const LT = 60; // <
const GT = 62; // >
const QUOT = 34;
const APOS = 39;
const SLASH = 47;

/**
 * Splits an XML byte stream (events come in batches, one per chunk read) into the elements the caller wants whole (a camt `<Ntry>`, a `<Bal>`),
 * holding at most one of them in memory, and reports the structure around them. It tracks element
 * nesting itself, so it notices truncation and mismatched tags, skips comments, CDATA and
 * processing instructions (a commented-out `<Ntry>` is not an entry), and refuses any DOCTYPE or
 * ENTITY declaration before anything is expanded.
 */
export async function* scanElements(
  source: AsyncIterable<Buffer | string>,
  options: ScanOptions,
): AsyncGenerator<ScanEvent[]> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const stack: string[] = []; // local names of open elements
  const plain: boolean[] = []; // per open element: whether `</name>` alone closes it (no prefix or quote)
  let buf = '';
  let pos = 0; // next unread character of buf
  let captureFrom = -1; // index in buf of the captured element's '<', or -1
  let captureDepth = 0;
  let splitFrom = -1; // index in buf of the '<' of an element being cut out of the capture, or -1
  let splitDepth = 0;
  let shell: string[] = []; // the captured element's text before the cut-out elements, placeholders for them
  let shellChars = 0;
  let rootClosed = false;
  let sawRoot = false;
  const build = options.build === true;
  const tree = new TreeBuilder(); // the captured element, when building
  const part = new TreeBuilder(); // the element cut out of it
  /** The builder the current token belongs to, if any. */
  const builder = (): TreeBuilder | undefined =>
    !build ? undefined : splitFrom !== -1 ? part : captureFrom !== -1 ? tree : undefined;

  const decode = (chunk: Buffer | string, last: boolean): string => {
    if (typeof chunk === 'string') return chunk;
    try {
      return decoder.decode(chunk, { stream: !last });
    } catch {
      throw new CamtError('malformed', 'the file is not valid UTF-8');
    }
  };

  let events: ScanEvent[] = []; // found in the current chunk

  const scan = (): void => {
    for (;;) {
      const lt = buf.indexOf('<', pos);
      const active = builder();
      if (active !== undefined) {
        // Text is taken as soon as it is seen: an unfinished token after it is rescanned from lt.
        const end = lt === -1 ? buf.length : lt;
        if (end > pos) active.text(buf.slice(pos, end));
        pos = end;
      }
      if (lt === -1) {
        pos = buf.length;
        return;
      }
      if (lt + 1 >= buf.length) return need(lt);
      const next = buf.charCodeAt(lt + 1);
      if (next === 33 /* ! */) {
        if (buf.startsWith('<!--', lt)) {
          const end = buf.indexOf('-->', lt + 4);
          if (end === -1) return need(lt);
          pos = end + 3;
          continue;
        }
        if (buf.startsWith('<![CDATA[', lt)) {
          const end = buf.indexOf(']]>', lt + 9);
          if (end === -1) return need(lt);
          if (stack.length === 0) throw new CamtError('malformed', 'CDATA outside the root element');
          active?.cdata(buf.slice(lt + 9, end));
          pos = end + 3;
          continue;
        }
        if (buf.length - lt < 9) return need(lt);
        const word = buf.slice(lt, lt + 9).toUpperCase();
        if (word.startsWith('<!DOCTYPE')) {
          throw new CamtError('doctype_forbidden', 'a DOCTYPE declaration is not accepted in a bank file');
        }
        if (word.startsWith('<!ENTITY')) {
          throw new CamtError('entity_forbidden', 'an ENTITY declaration is not accepted in a bank file');
        }
        throw new CamtError('malformed', `unexpected markup ${JSON.stringify(buf.slice(lt, lt + 9))}`);
      }
      if (next === 63 /* ? */) {
        const end = buf.indexOf('?>', lt + 2);
        if (end === -1) return need(lt);
        active?.instruction();
        pos = end + 2;
        continue;
      }
      if (next === SLASH) {
        // Nearly every end tag is exactly `</Name>` for the open element: checked in place.
        const open = stack[stack.length - 1];
        let gt = open !== undefined && plain[plain.length - 1] === true ? lt + 2 + open.length : -1;
        let name = open;
        if (gt === -1 || buf.charCodeAt(gt) !== GT || !buf.startsWith(open!, lt + 2)) {
          gt = tagEnd(buf, lt + 1);
          if (gt === -1) return need(lt);
          name = localName(buf.slice(lt + 2, gt).trim());
        }
        stack.pop();
        plain.pop();
        if (open === undefined || name !== open) {
          throw new CamtError(
            'malformed',
            `closing </${name}> does not match <${open ?? ''}>`,
            pathOf(stack),
          );
        }
        pos = gt + 1;
        const node = active?.close();
        if (splitFrom !== -1 && stack.length < splitDepth) {
          const xml = buf.slice(splitFrom, pos);
          splitFrom = -1;
          captureFrom = pos; // the capture goes on after the cut-out element
          events.push({ type: 'element', path: [...stack, name], xml, node });
        } else if (captureFrom !== -1 && stack.length < captureDepth) {
          const xml =
            shell.length === 0 ? buf.slice(captureFrom, pos) : shell.join('') + buf.slice(captureFrom, pos);
          captureFrom = -1;
          shell = [];
          shellChars = 0;
          events.push({ type: 'element', path: [...stack, name], xml, node });
        } else if (captureFrom === -1 && stack.length < options.reportDepth) {
          events.push({ type: 'end', path: [...stack, name] });
        }
        if (stack.length === 0) rootClosed = true;
        continue;
      }
      // A tag without attributes ends where its name does: found in the one pass over the name.
      let gt = plainTagEnd(buf, lt + 1);
      const plainTag = gt !== -1; // no quote or space in it
      let rawName: string;
      if (plainTag) {
        rawName = buf.slice(lt + 1, buf.charCodeAt(gt - 1) === SLASH ? gt - 1 : gt);
      } else {
        gt = tagEnd(buf, lt + 1);
        if (gt === -1) return need(lt);
        rawName = nameAt(buf, lt + 1, gt);
      }
      const selfClosing = buf.charCodeAt(gt - 1) === SLASH;
      if (rawName === '') throw new CamtError('malformed', 'a tag without a name', pathOf(stack));
      if (rootClosed) throw new CamtError('malformed', 'content after the root element');
      const name = localName(rawName);
      sawRoot = true;
      stack.push(name);
      plain.push(name === rawName && (plainTag || !/["'\s]/.test(name)));
      pos = gt + 1;
      const attributes = build ? attributesOf(buf, lt + 1 + rawName.length, gt, selfClosing) : '';
      if (captureFrom !== -1 && splitFrom === -1 && options.split?.(stack) === true) {
        const before = buf.slice(captureFrom, lt);
        const placeholder = `<${rawName}/>`;
        shell.push(before, placeholder);
        shellChars += before.length + placeholder.length;
        if (build) tree.placeholder(name);
        if (selfClosing) {
          captureFrom = pos;
          const node = build ? part.open(name, attributes, true) : undefined;
          events.push({ type: 'element', path: [...stack], xml: buf.slice(lt, pos), node });
        } else {
          splitFrom = lt;
          splitDepth = stack.length;
          if (build) part.open(name, attributes, false);
        }
      } else if (captureFrom === -1) {
        if (options.capture(stack)) {
          if (selfClosing) {
            const node = build ? tree.open(name, attributes, true) : undefined;
            events.push({ type: 'element', path: [...stack], xml: buf.slice(lt, pos), node });
          } else {
            captureFrom = lt;
            captureDepth = stack.length;
            if (build) tree.open(name, attributes, false);
          }
        } else if (stack.length <= options.reportDepth) {
          events.push({ type: 'start', path: [...stack], tag: buf.slice(lt, pos) });
          if (selfClosing) events.push({ type: 'end', path: [...stack] });
        }
      } else {
        active?.open(name, attributes, selfClosing);
      }
      if (selfClosing) {
        stack.pop();
        plain.pop();
      }
    }
  };

  /** Keeps the unfinished token (and any element being captured) for the next chunk. */
  const need = (from: number): void => {
    pos = from;
  };

  const compact = (): void => {
    const keep = splitFrom !== -1 ? splitFrom : captureFrom === -1 ? pos : captureFrom;
    if (keep > 0) {
      buf = buf.slice(keep);
      pos -= keep;
      if (splitFrom !== -1) splitFrom = 0;
      else if (captureFrom !== -1) captureFrom = 0;
    }
    const held = buf.length + shellChars;
    if (held > options.maxElementChars) {
      throw new CamtError(
        'element_too_large',
        `an element is larger than ${options.maxElementChars} characters`,
        pathOf(stack),
      );
    }
  };

  /** The events found so far, handed over in one piece: one await per chunk, not per event. */
  const take = (): ScanEvent[] => {
    const found = events;
    events = [];
    return found;
  };

  for await (const chunk of source) {
    buf += decode(chunk, false);
    scan();
    if (events.length > 0) yield take();
    compact();
  }
  buf += decode(Buffer.alloc(0), true);
  scan();
  if (events.length > 0) yield take();
  if (stack.length > 0 || pos < buf.length) {
    throw new CamtError('truncated', 'the file ends before its elements are closed', pathOf(stack));
  }
  if (!sawRoot) throw new CamtError('truncated', 'the file is empty');
}

/**
 * Index of the '>' of a tag that is only a name (`<Name>`, `<Name/>`), or -1 for any other tag
 * (attributes, quotes, '<', or not all in `buf` yet), which tagEnd then reads.
 */
function plainTagEnd(buf: string, from: number): number {
  for (let i = from; i < buf.length; i++) {
    const c = buf.charCodeAt(i);
    if (c === GT) return i;
    if (c === SLASH) return buf.charCodeAt(i + 1) === GT ? i + 1 : -1;
    if (c === LT || c === QUOT || c === APOS || c === 32 || c === 9 || c === 10 || c === 13) return -1;
  }
  return -1;
}

/** Index of the '>' that ends the tag starting before `from`, skipping quoted attribute values. */
export function tagEnd(buf: string, from: number): number {
  let quote = 0;
  for (let i = from; i < buf.length; i++) {
    const c = buf.charCodeAt(i);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === QUOT || c === APOS) {
      quote = c;
    } else if (c === GT) {
      return i;
    } else if (c === LT) {
      throw new CamtError('malformed', "'<' inside a tag");
    }
  }
  return -1;
}

/** What follows a start tag's name, without the `/` of a self-closing tag; '' when nothing does. */
function attributesOf(buf: string, from: number, gt: number, selfClosing: boolean): string {
  const to = selfClosing ? gt - 1 : gt;
  return from >= to ? '' : buf.slice(from, to);
}

/** The tag name starting at `from`, prefix included. */
export function nameAt(buf: string, from: number, to: number): string {
  let i = from;
  while (i < to) {
    const c = buf.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === SLASH || c === GT) break;
    i++;
  }
  return buf.slice(from, i);
}

/** The name without its namespace prefix. */
export function localName(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon === -1 ? qualified : qualified.slice(colon + 1);
}

function pathOf(stack: readonly string[]): string {
  return stack.join('/');
}
