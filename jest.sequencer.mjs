/**
 * Runs the files known to take longest first. Jest orders a run without its timing cache (every CI
 * run is a fresh clone) by file size, which once started the longest file last: the other worker
 * sat idle while it finished. Known long files go first; the rest keep Jest's own order.
 */
import TestSequencer from '@jest/test-sequencer';

const Sequencer = TestSequencer.default ?? TestSequencer;

// Longest first, from the file times of the last full run on the CI machine (seconds): with two
// workers, a long file started near the end keeps one worker busy while the other sits idle.
const LONGEST_FIRST = [
  'test/e2e/cli.test.ts', // 129
  'test/integration/subscription-cancel-race.test.ts', // 102
  'test/integration/billing-run-crash.test.ts', // 100
  'test/integration/dashboard-pages.test.ts', // 78
  'test/integration/subscriptions.test.ts', // 68
  'test/e2e/pos-day.test.ts', // 60
  'test/integration/api-fuzz.test.ts',
  'test/e2e/merchant-self-serve.test.ts', // 43
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
