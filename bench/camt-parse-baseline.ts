/**
 * The bank-file parse as it was before the single-pass tree builder (decision 0180): the same
 * splitting scanner, then every cut-out element parsed a second time by fast-xml-parser and converted
 * to plain objects. Kept only as the benchmark's side-by-side baseline; it reads entries and checks
 * totals as parseCamt does.
 */
import { checkStatementTotals, newTally, tallyEntry } from '../adapters/banks/camt/control-totals';
import { completeEntry, readEntryShell, readTransaction } from '../adapters/banks/camt/read-entry';
import { STATEMENT_ELEMENT, StatementBuilder, readMessageType } from '../adapters/banks/camt/read-statement';
import { scanElements } from '../adapters/banks/camt/xml-element-scanner';
import type { CamtMessageType, CamtStatement, CamtTxDtls } from '../adapters/banks/camt';
import { parseFragment } from '../test/helpers/fxp-fragment';

/** Entries read and whether every statement's stated totals agreed with them. */
export async function parseCamtBaseline(
  source: AsyncIterable<Buffer | string>,
): Promise<{ entries: number; verified: boolean }> {
  let type: CamtMessageType = 'camt.054';
  let statement: StatementBuilder | undefined;
  let built: CamtStatement | undefined;
  let tally = newTally();
  let transactions: CamtTxDtls[] = [];
  let entries = 0;
  let entryIndex = 0;
  let verified = true;
  const scanner = scanElements(source, {
    maxElementChars: 16 * 1024 * 1024,
    reportDepth: 3,
    capture: (path) =>
      (path.length === 3 && path[2] === 'GrpHdr') ||
      (path.length === 4 && (path[2] === 'Stmt' || path[2] === 'Ntfctn')),
    split: (path) =>
      path.length === 6 && path[3] === 'Ntry' && path[4] === 'NtryDtls' && path[5] === 'TxDtls',
  });
  for await (const batch of scanner) {
    for (const event of batch) {
      const depth = event.path.length;
      const name = event.path[depth - 1]!;
      if (event.type === 'start') {
        if (depth === 1) type = readMessageType(event.tag).type;
        if (depth === 3 && name === STATEMENT_ELEMENT[type]) {
          statement = new StatementBuilder(STATEMENT_ELEMENT[type]);
          built = undefined;
          tally = newTally();
          entryIndex = 0;
        }
      } else if (event.type === 'element' && depth > 3 && statement !== undefined) {
        if (name !== 'Ntry' && depth === 4) {
          statement.add(name, parseFragment(event.xml, name)[name]);
          continue;
        }
        built ??= statement.build();
        if (depth === 6) {
          transactions.push(readTransaction(parseFragment(event.xml, 'TxDtls').TxDtls, built.Id));
          continue;
        }
        const shell = readEntryShell(parseFragment(event.xml, 'Ntry').Ntry, entryIndex++, built.Id);
        tallyEntry(tally, completeEntry(shell, transactions));
        transactions = [];
        entries++;
      } else if (event.type === 'end' && depth === 3 && statement !== undefined && built !== undefined) {
        verified &&= checkStatementTotals(type, built, tally).every((c) => c.ok);
        statement = undefined;
      }
    }
  }
  return { entries, verified };
}
