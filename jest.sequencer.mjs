/**
 * Runs the files known to take longest first. Jest orders a run without its timing cache (every CI
 * run is a fresh clone) by file size, which started the longest file, the billing run under worker
 * kills (about 70 s), last: the other worker sat idle while it finished. Known long files go first;
 * the rest keep Jest's own order.
 */
import TestSequencer from '@jest/test-sequencer';

const Sequencer = TestSequencer.default ?? TestSequencer;

const LONGEST_FIRST = [
  'test/integration/billing-run-crash.test.ts',
  'test/integration/subscriptions.test.ts',
  'test/unit/camt-split-transactions.test.ts',
  'test/integration/webhook-crash.test.ts',
  'test/integration/bank-sync.test.ts',
];

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      const i = LONGEST_FIRST.findIndex((p) => test.path.endsWith(p));
      return i === -1 ? LONGEST_FIRST.length : i;
    };
    const ordered = super.sort(tests);
    return Array.isArray(ordered)
      ? [...ordered].sort((a, b) => rank(a) - rank(b))
      : ordered.then((o) => [...o].sort((a, b) => rank(a) - rank(b)));
  }
}

export default LongestFirstSequencer;
