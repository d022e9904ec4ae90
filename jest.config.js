/**
 * One run: unit tests and integration tests against real PostgreSQL and a real Temporal dev server,
 * both started once in globalSetup. Each integration test file clones its own database from a
 * migrated template (test/helpers/database.ts).
 */
module.exports = {
  // Node's environment plus the jest worker's shared stack (decision 0200).
  testEnvironment: '<rootDir>/test/helpers/shared-stack-environment.ts',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  globalSetup: '<rootDir>/test/helpers/global-setup.ts',
  testSequencer: '<rootDir>/jest.sequencer.mjs',
  globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
  testTimeout: 60_000,
  // Three on the CI machine's two cores: each file also waits on timers, Temporal and child
  // processes, and with two workers a quarter of the CPU sat idle (804 s for the suite; 717 s with
  // three, every test passing). Four were tried on 2026-12-03: 20 % more CPU for the same tests and
  // a longer run (1,232 against 1,090 s; bench/RESULTS.md).
  maxWorkers: 3,
  // Each file loads the API, a Temporal worker and often Chromium's driver; what they leave behind
  // grew each worker past 2.5 GB by the end of a run, and garbage collection slowed every later file.
  // A worker over this after a file is replaced by a fresh one (about a second).
  workerIdleMemoryLimit: '1GB',
  // Temporal's native worker and pg pools are closed in afterAll; this only guards against a leak
  // keeping the run alive after a failure.
  forceExit: true,
};
