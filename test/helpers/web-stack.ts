// The web stack: the API alone, no Temporal, for the browser flows of sign-up, sign-in and team.
// Types and a wrapper only; the API is started by web-stack-start.ts in the jest worker's own
// realm, as the other stacks are (decision 0200).
import type { Knex } from '../../db/knex';
import type { TestDatabase } from './database';
import type { MailCatcher } from './mail';
import { fileKnex } from './stack';

export interface WebStack {
  /** The origin the API believes it is served at, so the URLs it hands out (verification_url) work. */
  url: string;
  knex: Knex;
  db: TestDatabase;
  /** The local mail catcher the API's mail goes to over SMTP (decision 0114). */
  mail: MailCatcher;
  merchant(name?: string): Promise<{ id: string; testKey: string }>;
  stop(): Promise<void>;
}

export interface WebStackOptions {
  allowPrivateRanges?: string[];
}

declare global {
  // Set by test/helpers/shared-stack-environment.ts in every file's global.
  var __skilStartWebStack: ((opts: WebStackOptions) => Promise<WebStack>) | undefined;
}

/**
 * The API on its own database, listening on a port chosen first so that PUBLIC_BASE_URL is the
 * real address: the browser follows verification_url exactly as the API returns it. The file gets
 * its own knex on the stack's database (fileKnex), so rows are objects of its realm.
 */
export async function startWebStack(opts: WebStackOptions = {}): Promise<WebStack> {
  const start = globalThis.__skilStartWebStack;
  if (!start) return (await import('./web-stack-start')).startWebStack(opts);
  const outer = await start(opts);
  const files = fileKnex(outer.db.url);
  return {
    ...outer,
    get knex() {
      return files.knex();
    },
    db: files.database(async () => {
      await files.close();
      await outer.db.drop();
    }),
    async stop() {
      await files.close();
      await outer.stop();
    },
  };
}
