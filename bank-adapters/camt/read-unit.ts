import type { CamtTxDtls } from './camt-types';
import { readEntryShell, readTransaction, type CamtEntryShell } from './read-entry';
import { parseFragment } from './xml-values';

/**
 * One piece of a statement that is parsed alone, here or on a worker thread: a transaction the
 * scanner cut out of its entry, or the entry's shell. `where` names it in error messages.
 */
export type CamtUnit =
  | { kind: 'transaction'; xml: string; where: string }
  | { kind: 'entry'; xml: string; index: number; where: string };

export type CamtUnitResult =
  { kind: 'transaction'; transaction: CamtTxDtls } | { kind: 'entry'; shell: CamtEntryShell };

export function readUnit(unit: CamtUnit): CamtUnitResult {
  if (unit.kind === 'transaction') {
    return {
      kind: 'transaction',
      transaction: readTransaction(parseFragment(unit.xml, 'TxDtls').TxDtls, unit.where),
    };
  }
  return {
    kind: 'entry',
    shell: readEntryShell(parseFragment(unit.xml, 'Ntry').Ntry, unit.index, unit.where),
  };
}
