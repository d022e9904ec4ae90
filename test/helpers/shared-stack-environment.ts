import { TestEnvironment } from 'jest-environment-node';
import type { Browser, BrowserContext } from 'playwright-core';
import type * as BrowserModule from './browser';
import type * as StackModule from './stack';
import type { TestStack, TestStackOptions } from './stack';
import type * as StackStartModule from './stack-start';
import type { WebStack, WebStackOptions } from './web-stack';
import type * as WebStackStartModule from './web-stack-start';
import { collectFileStorages, disableFileStorages } from './file-async-storage';

/** jest-worker's message to a worker process that the run is over (its CHILD_MESSAGE_END). */
const CHILD_MESSAGE_END = 2;

/*
 * The test environment of every file: node's, plus this jest worker's shared stack (decision 0200).
 *
 * Jest gives each test file a module registry of its own, so a stack started from a file dies with
 * it: 84 files each paid for an API, a worker, a database and four simulators. This module is
 * loaded once per jest worker process, outside any file's registry, so the stack it starts there
 * (the first time a file asks, through `sharedTestStack()` in stack.ts) serves every later file of
 * that process. It is never stopped by a file; its database is checked and dropped by the global
 * teardown (test/helpers/global-teardown.ts) once the workers have exited.
 */

let shared: Promise<TestStack> | undefined;
/** This jest worker's Chromium, launched the first time a file asks (decision 0200, "One browser"). */
let sharedBrowser: Promise<Browser> | undefined;
interface OuterModules {
  stackStart: typeof StackStartModule;
  stack: typeof StackModule;
  webStackStart: typeof WebStackStartModule;
  browser: typeof BrowserModule;
}
let outerModules: OuterModules | undefined;

/** The stack's modules in this process's own realm, loaded the first time a file needs a stack. */
function outerRealm(): OuterModules {
  if (outerModules) return outerModules;
  // tsx loads the stack's TypeScript in the worker process's own realm (jest's transform hook is
  // active only while this module itself loads). Registered for the process rather than namespaced:
  // a namespaced require marks module paths, and Temporal's worker threads load theirs by path.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('tsx/cjs/api') as { register: () => void }).register();
  // When jest ends this worker process, it waits half a second for the process to exit by itself and
  // then kills it with a warning; the stacks' servers and pools would keep it alive. Nothing of a
  // stack needs a goodbye: the global teardown checks and drops the databases left.
  process.on('message', (message) => {
    if (Array.isArray(message) && message[0] === CHILD_MESSAGE_END) setTimeout(() => process.exit(0), 50);
  });
  outerModules = {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    stackStart: require('./stack-start.ts') as typeof StackStartModule,
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    stack: require('./stack.ts') as typeof StackModule,
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    webStackStart: require('./web-stack-start.ts') as typeof WebStackStartModule,
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    browser: require('./browser.ts') as typeof BrowserModule,
  };
  return outerModules;
}

function startShared(): Promise<TestStack> {
  const { stackStart, stack } = outerRealm();
  return stackStart.startStack(stack.SHARED_STACK_OPTIONS);
}

export default class SharedStackEnvironment extends TestEnvironment {
  /** This file's stack, and how many bank exchanges it had seen when the file first asked. */
  private used: { stack: TestStack; bankExchangesBefore: number } | null = null;
  /** The stacks of its own this file started and has not stopped. */
  private readonly own = new Set<{ stop(): Promise<void> }>();
  /** The browser contexts this file opened in the worker's Chromium and has not closed. */
  private readonly contexts = new Set<BrowserContext>();

  private readonly started = { cpu: process.cpuUsage(), at: Date.now() };
  private readonly testPath: string;

  constructor(...args: ConstructorParameters<typeof TestEnvironment>) {
    super(...args);
    this.testPath = args[1].testPath;
  }

  override async setup(): Promise<void> {
    collectFileStorages();
    await super.setup();
    this.global.__skilSharedStack = async () => {
      shared ??= startShared().catch((err: unknown) => {
        shared = undefined;
        throw err;
      });
      const stack = await shared;
      this.used ??= { stack, bankExchangesBefore: stack.bank?.exchanges.length ?? 0 };
      return stack;
    };
    // A file's own stack, started here for the same reason as the shared one: the API's and the
    // worker's modules load once per worker process, not once per file.
    this.global.__skilStartStack = async (opts: TestStackOptions) =>
      this.tracked(await outerRealm().stackStart.startStack(opts));
    this.global.__skilStartWebStack = async (opts: WebStackOptions) =>
      this.tracked(await outerRealm().webStackStart.startWebStack(opts));
    this.global.__skilSharedBrowser = async () => {
      sharedBrowser ??= outerRealm()
        .browser.launchOwnChromium()
        .catch((err: unknown) => {
          sharedBrowser = undefined;
          throw err;
        });
      return this.browserForFile(await sharedBrowser);
    };
  }

  /**
   * The worker's Chromium as this file sees it: what the file opens is its own, and closing "the
   * browser" closes only that, so the next file finds a browser with nothing of this one's left.
   */
  private browserForFile(browser: Browser): Browser {
    const track = (context: BrowserContext): BrowserContext => {
      this.contexts.add(context);
      context.once('close', () => this.contexts.delete(context));
      return context;
    };
    const closeOwn = async () => {
      const open = [...this.contexts];
      this.contexts.clear();
      await Promise.all(open.map((c) => c.close().catch(() => undefined)));
    };
    return new Proxy(browser, {
      get: (target, key, receiver) => {
        if (key === 'newContext')
          return async (...args: Parameters<Browser['newContext']>) =>
            track(await target.newContext(...args));
        if (key === 'newPage')
          return async (...args: Parameters<Browser['newPage']>) => {
            const context = track(await target.newContext(...args));
            return context.newPage();
          };
        if (key === 'close') return closeOwn;
        const value: unknown = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** The stack, with a `stop()` that also tells the teardown it need not stop it. */
  private tracked<S extends TestStack | WebStack>(stack: S): S {
    this.own.add(stack);
    return {
      ...stack,
      stop: async () => {
        this.own.delete(stack);
        await stack.stop();
      },
    };
  }

  override async teardown(): Promise<void> {
    // Every exchange with the simulated bank validates against
    // IOBWS-Claims3.1.yaml; a file whose traffic does not fails, as it does on a stack of its own.
    const problems = this.used?.stack.bank?.problems({ from: this.used.bankExchangesBefore }) ?? [];
    // A file that failed before its afterAll stopped its stack would leave it serving in this
    // process for the files after it.
    const left = [...this.own];
    this.own.clear();
    const contexts = [...this.contexts];
    this.contexts.clear();
    await Promise.all([
      ...left.map((stack) => stack.stop().catch(() => undefined)),
      ...contexts.map((context) => context.close().catch(() => undefined)),
    ]);
    await super.teardown();
    disableFileStorages();
    if (process.env.SKIL_TEST_CPU_LOG) {
      const cpu = process.cpuUsage(this.started.cpu);
      const fs = await import('node:fs');
      fs.appendFileSync(
        process.env.SKIL_TEST_CPU_LOG,
        `${JSON.stringify({ file: this.testPath, pid: process.pid, wall: Date.now() - this.started.at, cpu: Math.round((cpu.user + cpu.system) / 1000) })}\n`,
      );
    }
    if (problems.length > 0)
      throw new Error(`simulated bank traffic breaks IOBWS-Claims3.1.yaml:\n${problems.join('\n')}`);
  }
}
