import type { CamtTxDtls } from './camt-types';
import { readEntryShell, readTransaction, type CamtEntryShell } from './read-entry';
import { parseElement } from './xml-fragment';
import type { XmlNode } from './xml-tree';

/**
 * One piece of a statement that is read alone, here or on a worker thread: a transaction the
 * scanner cut out of its entry, or the entry's shell. `node` is the element as the scanner built
 * it on this thread; without it (on a worker) `xml` is parsed. `where` names it in error messages.
 */
export type CamtUnit =
  | { kind: 'transaction'; xml: string; node?: XmlNode; where: string }
  | { kind: 'entry'; xml: string; node?: XmlNode; index: number; where: string };

export type CamtUnitResult =
  { kind: 'transaction'; transaction: CamtTxDtls } | { kind: 'entry'; shell: CamtEntryShell };

export function readUnit(unit: CamtUnit): CamtUnitResult {
  if (unit.kind === 'transaction') {
    return {
      kind: 'transaction',
      transaction: readTransaction(unit.node ?? parseElement(unit.xml, unit.where), unit.where),
    };
  }
  return {
    kind: 'entry',
    shell: readEntryShell(unit.node ?? parseElement(unit.xml, unit.where), unit.index, unit.where),
  };
}
