/**
 * Runs the files known to take longest first. Jest orders a run without its timing cache (every CI
 * run is a fresh clone) by file size, which once started the longest file last: the other workers
 * sat idle while it finished. Known long files go first, files with time bounds last; the rest keep
 * Jest's own order.
 */
import TestSequencer from '@jest/test-sequencer';

const Sequencer = TestSequencer.default ?? TestSequencer;

// Longest first, from the file times of a full run on the CI machine with three workers (seconds):
// a long file started near the end keeps one worker busy while the others sit idle.
const LONGEST_FIRST = [
  'test/integration/billing-run-crash.test.ts', // 119
  'test/integration/webhook-crash.test.ts', // 90
  'test/integration/claim-collection.test.ts', // 71 alone, 152 beside the suite
  'test/integration/subscription-claim-fallback.test.ts', // 70
  'test/e2e/cli.test.ts', // 68
  'test/integration/api-fuzz.test.ts', // 62
  'test/e2e/pos-day.test.ts', // 62
  'test/integration/subscription-cancel-race.test.ts', // 55
  'test/integration/rate-limits.test.ts',
  'test/integration/dashboard-pages.test.ts',
  'test/integration/invoices.test.ts',
  'test/integration/webhook-auto-disable.test.ts',
];

// Files with a time bound of their own run last when the whole suite runs in one jest (`npm test`
// runs them first, alone: tools/test.mjs): beside other files their bound does not hold.
const LAST = ['test/integration/subscriptions.test.ts'];

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    const rank = (test) => {
      if (LAST.some((p) => test.path.endsWith(p))) return LONGEST_FIRST.length + 1;
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
