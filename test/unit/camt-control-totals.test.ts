import { checkStatementTotals, newTally, tallyEntry } from '../../adapters/banks/camt/control-totals';
import type { CamtMessageType, CamtStatement, CdtDbtInd } from '../../adapters/banks/camt/camt-types';

type E = [CdtDbtInd, bigint, boolean?]; // direction, minor units, booked (default true)

function run(type: CamtMessageType, entries: E[], statement: Partial<CamtStatement>) {
  const tally = newTally();
  for (const [CdtDbtInd, minor, booked = true] of entries) {
    tallyEntry(tally, { Amt: { Ccy: 'ISK', minor }, CdtDbtInd, booked });
  }
  const full: CamtStatement = { element: 'Stmt', Id: 'S1', Acct: { Ccy: 'ISK' }, Bal: [], ...statement };
  return checkStatementTotals(type, full, tally);
}

const bal = (Tp: string, minor: bigint, CdtDbtInd: CdtDbtInd = 'CRDT', Ccy = 'ISK') => ({
  Tp,
  Amt: { Ccy, minor },
  CdtDbtInd,
  Dt: { Dt: '2026-11-20' },
});

test.each<[string, CamtMessageType, E[], Partial<CamtStatement>, Array<[string, boolean]>]>([
  [
    'count and gross sum agree',
    'camt.054',
    [
      ['CRDT', 1000n],
      ['DBIT', 300n],
    ],
    { TxsSummry: { TtlNtries: { NbOfNtries: 2, Sum: '1300' } } },
    [
      ['TtlNtries/NbOfNtries', true],
      ['TtlNtries/Sum', true],
    ],
  ],
  [
    'one entry missing',
    'camt.054',
    [['CRDT', 1000n]],
    { TxsSummry: { TtlNtries: { NbOfNtries: 2, Sum: '1300' } } },
    [
      ['TtlNtries/NbOfNtries', false],
      ['TtlNtries/Sum', false],
    ],
  ],
  [
    'net credit',
    'camt.054',
    [
      ['CRDT', 1000n],
      ['DBIT', 300n],
    ],
    { TxsSummry: { TtlNtries: { TtlNetNtryAmt: '700', CdtDbtInd: 'CRDT' } } },
    [['TtlNtries/TtlNetNtryAmt', true]],
  ],
  [
    'net debit',
    'camt.054',
    [
      ['CRDT', 100n],
      ['DBIT', 300n],
    ],
    { TxsSummry: { TtlNtries: { TtlNetNtryAmt: '200', CdtDbtInd: 'DBIT' } } },
    [['TtlNtries/TtlNetNtryAmt', true]],
  ],
  [
    'net with the wrong sign',
    'camt.054',
    [
      ['CRDT', 100n],
      ['DBIT', 300n],
    ],
    { TxsSummry: { TtlNtries: { TtlNetNtryAmt: '200', CdtDbtInd: 'CRDT' } } },
    [['TtlNtries/TtlNetNtryAmt', false]],
  ],
  [
    'credit and debit subtotals',
    'camt.054',
    [
      ['CRDT', 100n],
      ['CRDT', 50n],
      ['DBIT', 300n],
    ],
    {
      TxsSummry: { TtlCdtNtries: { NbOfNtries: 2, Sum: '150' }, TtlDbtNtries: { NbOfNtries: 1, Sum: '301' } },
    },
    [
      ['TtlCdtNtries/NbOfNtries', true],
      ['TtlCdtNtries/Sum', true],
      ['TtlDbtNtries/NbOfNtries', true],
      ['TtlDbtNtries/Sum', false],
    ],
  ],
  [
    'a stated sum with more decimals than ISK has never matches',
    'camt.054',
    [['CRDT', 100n]],
    { TxsSummry: { TtlNtries: { Sum: '100.5' } } },
    [['TtlNtries/Sum', false]],
  ],
  [
    'balance holds, pending entries do not move it',
    'camt.053',
    [
      ['CRDT', 500n],
      ['DBIT', 200n],
      ['CRDT', 999n, false],
    ],
    { Bal: [bal('OPBD', 1000n), bal('CLBD', 1300n)] },
    [['OPBD + credits - debits = CLBD', true]],
  ],
  [
    'balance off by one',
    'camt.053',
    [['CRDT', 500n]],
    { Bal: [bal('OPBD', 1000n), bal('CLBD', 1499n)] },
    [['OPBD + credits - debits = CLBD', false]],
  ],
  [
    'overdrawn account: debit balances are negative',
    'camt.053',
    [['DBIT', 500n]],
    { Bal: [bal('OPBD', 100n, 'DBIT'), bal('CLBD', 600n, 'DBIT')] },
    [['OPBD + credits - debits = CLBD', true]],
  ],
  [
    'PRCD stands in for a missing OPBD',
    'camt.053',
    [['CRDT', 1n]],
    { Bal: [bal('PRCD', 10n), bal('CLBD', 11n)] },
    [['OPBD + credits - debits = CLBD', true]],
  ],
  [
    'a statement without opening and closing balances fails',
    'camt.053',
    [],
    { Bal: [bal('CLAV', 10n)] },
    [['OPBD + credits - debits = CLBD', false]],
  ],
  [
    'a closing balance in another currency fails',
    'camt.053',
    [],
    { Bal: [bal('OPBD', 10n), bal('CLBD', 10n, 'CRDT', 'EUR')] },
    [['OPBD + credits - debits = CLBD', false]],
  ],
  ['camt.054 has no balance check', 'camt.054', [['CRDT', 1n]], { Bal: [] }, []],
])('%s', (_name, type, entries, statement, expected) => {
  expect(run(type, entries, statement).map((c) => [c.check, c.ok])).toEqual(expected);
});

test("entries in a currency other than the account's fail the statement", () => {
  const tally = newTally();
  tallyEntry(tally, { Amt: { Ccy: 'EUR', minor: 1n }, CdtDbtInd: 'CRDT', booked: true });
  const checks = checkStatementTotals(
    'camt.054',
    { element: 'Ntfctn', Id: 'N', Acct: { Ccy: 'ISK' }, Bal: [] },
    tally,
  );
  expect(checks).toEqual([{ check: 'entry currency', stated: 'ISK', computed: 'EUR', ok: false }]);
});
