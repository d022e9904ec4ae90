import { CamtError } from './errors';

/** What the scanner reports: structure outside captured elements, and each captured element's text. */
export type ScanEvent =
  | { type: 'start'; path: readonly string[]; tag: string }
  | { type: 'end'; path: readonly string[] }
  | { type: 'element'; path: readonly string[]; xml: string };

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
}

const LT = 60; // <
const GT = 62; // >
const QUOT = 34;
const APOS = 39;
const SLASH = 47;

/**
 * Splits an XML byte stream into the elements the caller wants whole (a camt `<Ntry>`, a `<Bal>`),
 * holding at most one of them in memory, and reports the structure around them. It tracks element
 * nesting itself, so it notices truncation and mismatched tags, skips comments, CDATA and
 * processing instructions (a commented-out `<Ntry>` is not an entry), and refuses any DOCTYPE or
 * ENTITY declaration before anything is expanded.
 */
export async function* scanElements(
  source: AsyncIterable<Buffer | string>,
  options: ScanOptions,
): AsyncGenerator<ScanEvent> {
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
  const stack: string[] = []; // local names of open elements
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

  const decode = (chunk: Buffer | string, last: boolean): string => {
    if (typeof chunk === 'string') return chunk;
    try {
      return decoder.decode(chunk, { stream: !last });
    } catch {
      throw new CamtError('malformed', 'the file is not valid UTF-8');
    }
  };

  const scan = function* (): Generator<ScanEvent> {
    for (;;) {
      const lt = buf.indexOf('<', pos);
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
        pos = end + 2;
        continue;
      }
      const gt = tagEnd(buf, lt + 1);
      if (gt === -1) return need(lt);
      if (next === SLASH) {
        const name = localName(buf.slice(lt + 2, gt).trim());
        const open = stack.pop();
        if (open !== name) {
          throw new CamtError(
            'malformed',
            `closing </${name}> does not match <${open ?? ''}>`,
            pathOf(stack),
          );
        }
        pos = gt + 1;
        if (splitFrom !== -1 && stack.length < splitDepth) {
          const xml = buf.slice(splitFrom, pos);
          splitFrom = -1;
          captureFrom = pos; // the capture goes on after the cut-out element
          yield { type: 'element', path: [...stack, name], xml };
        } else if (captureFrom !== -1 && stack.length < captureDepth) {
          const xml =
            shell.length === 0 ? buf.slice(captureFrom, pos) : shell.join('') + buf.slice(captureFrom, pos);
          captureFrom = -1;
          shell = [];
          shellChars = 0;
          yield { type: 'element', path: [...stack, name], xml };
        } else if (captureFrom === -1 && stack.length < options.reportDepth) {
          yield { type: 'end', path: [...stack, name] };
        }
        if (stack.length === 0) rootClosed = true;
        continue;
      }
      const selfClosing = buf.charCodeAt(gt - 1) === SLASH;
      const rawName = nameAt(buf, lt + 1, gt);
      if (rawName === '') throw new CamtError('malformed', 'a tag without a name', pathOf(stack));
      if (rootClosed) throw new CamtError('malformed', 'content after the root element');
      const name = localName(rawName);
      sawRoot = true;
      stack.push(name);
      pos = gt + 1;
      if (captureFrom !== -1 && splitFrom === -1 && options.split?.(stack) === true) {
        const before = buf.slice(captureFrom, lt);
        const placeholder = `<${rawName}/>`;
        shell.push(before, placeholder);
        shellChars += before.length + placeholder.length;
        if (selfClosing) {
          captureFrom = pos;
          yield { type: 'element', path: [...stack], xml: buf.slice(lt, pos) };
        } else {
          splitFrom = lt;
          splitDepth = stack.length;
        }
      } else if (captureFrom === -1) {
        if (options.capture(stack)) {
          if (selfClosing) {
            yield { type: 'element', path: [...stack], xml: buf.slice(lt, pos) };
          } else {
            captureFrom = lt;
            captureDepth = stack.length;
          }
        } else if (stack.length <= options.reportDepth) {
          yield { type: 'start', path: [...stack], tag: buf.slice(lt, pos) };
          if (selfClosing) yield { type: 'end', path: [...stack] };
        }
      }
      if (selfClosing) stack.pop();
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

  for await (const chunk of source) {
    buf += decode(chunk, false);
    yield* scan();
    compact();
  }
  buf += decode(Buffer.alloc(0), true);
  yield* scan();
  if (stack.length > 0 || pos < buf.length) {
    throw new CamtError('truncated', 'the file ends before its elements are closed', pathOf(stack));
  }
  if (!sawRoot) throw new CamtError('truncated', 'the file is empty');
}

/** Index of the '>' that ends the tag starting before `from`, skipping quoted attribute values. */
function tagEnd(buf: string, from: number): number {
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

function nameAt(buf: string, from: number, to: number): string {
  let i = from;
  while (i < to) {
    const c = buf.charCodeAt(i);
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === SLASH || c === GT) break;
    i++;
  }
  return buf.slice(from, i);
}

function localName(qualified: string): string {
  const colon = qualified.indexOf(':');
  return colon === -1 ? qualified : qualified.slice(colon + 1);
}

function pathOf(stack: readonly string[]): string {
  return stack.join('/');
}
