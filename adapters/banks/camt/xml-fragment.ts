import { CamtError } from './errors';
import { localName, nameAt, tagEnd } from './xml-element-scanner';
import { TreeBuilder, type XmlNode } from './xml-tree';

/**
 * Reads one element the scanner has already delimited and checked (balanced tags, no DOCTYPE or
 * entity declaration) into plain objects, the same shape as the scanner builds in its own pass.
 * Used where the element's text travels instead of its tree: to the worker threads.
 */
export function parseElement(xml: string, where: string): XmlNode {
  try {
    return readElement(xml);
  } catch (error) {
    if (error instanceof CamtError) throw error;
    throw new CamtError('malformed', `not well-formed XML: ${(error as Error).message}`, where);
  }
}

function readElement(xml: string): XmlNode {
  const tree = new TreeBuilder();
  let result: XmlNode | undefined;
  let pos = 0;
  while (pos < xml.length) {
    const lt = xml.indexOf('<', pos);
    if (lt === -1) break; // text after the element is not part of it
    if (lt > pos) tree.text(xml.slice(pos, lt));
    if (xml.startsWith('<!--', lt)) {
      pos = closing(xml, '-->', lt + 4) + 3;
      continue;
    }
    if (xml.startsWith('<![CDATA[', lt)) {
      const end = closing(xml, ']]>', lt + 9);
      tree.cdata(xml.slice(lt + 9, end));
      pos = end + 3;
      continue;
    }
    if (xml.startsWith('<?', lt)) {
      tree.instruction();
      pos = closing(xml, '?>', lt + 2) + 2;
      continue;
    }
    if (xml.charCodeAt(lt + 1) === 33 /* ! */) throw new Error('a declaration inside an element');
    const gt = tagEnd(xml, lt + 1);
    if (gt === -1) throw new Error('a tag that does not end');
    pos = gt + 1;
    if (xml.charCodeAt(lt + 1) === 47 /* / */) {
      result = tree.close() ?? result;
      continue;
    }
    const rawName = nameAt(xml, lt + 1, gt);
    if (rawName === '') throw new Error('a tag without a name');
    const selfClosing = xml.charCodeAt(gt - 1) === 47;
    const from = lt + 1 + rawName.length;
    const to = selfClosing ? gt - 1 : gt;
    result = tree.open(localName(rawName), from >= to ? '' : xml.slice(from, to), selfClosing) ?? result;
  }
  if (result === undefined || tree.depth !== 0) throw new Error('an element that does not end');
  return result;
}

function closing(xml: string, token: string, from: number): number {
  const end = xml.indexOf(token, from);
  if (end === -1) throw new Error(`${token} missing`);
  return end;
}
