/**
 * Runs the files known to take longest first. Jest orders a run without its timing cache (every CI
 * run is a fresh clone) by file size, which once started the longest file last: the other workers
 * sat idle while it finished. Known long files go first, files with time bounds last; the rest keep
 * Jest's own order.
 */
import TestSequencer from '@jest/test-sequencer';

const Sequencer = TestSequencer.default ?? TestSequencer;

// Longest first, from the file times of a whole `npm test` on the CI machine (2026-12-03, three
// workers, calibration cpu 673 ms; wall seconds beside the suite): a long file started near the end
// keeps one worker busy while the others sit idle. The docs test once ran last and alone for two
// minutes.
const LONGEST_FIRST = [
  'test/integration/dashboard-pages.test.ts', // 159
  'test/integration/docs.test.ts', // 128
  'test/e2e/cli.test.ts', // 107
  'test/integration/billing-run-crash.test.ts', // 104
  'test/integration/subscription-cancel-race.test.ts', // 88
  'test/integration/subscription-claim-fallback.test.ts', // 81
  'test/e2e/invoice-delivery.test.ts', // 74
  'test/integration/claim-collection.test.ts', // 72
  'test/e2e/pos-day.test.ts', // 65
  'test/integration/claim-collection-crash.test.ts', // 59
  'test/integration/api-fuzz.test.ts', // 57
  'test/integration/rate-limits.test.ts', // 56
  'test/integration/invoices.test.ts', // 52
  'test/integration/books.test.ts', // 48
  'test/integration/dashboard-insight-pages.test.ts', // 41
  'test/e2e/subscription-claim-fallback.test.ts', // 40
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
