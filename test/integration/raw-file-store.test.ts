/**
 * The shared raw bank file store (decision 0145): what one worker stores, another reads, through
 * its own connection pool; the same bytes stored by two workers at once are kept once; a file of
 * several chunks comes back byte for byte.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createKnex, type Knex } from '../../db/knex';
import { createPostgresRawFileStore } from '../../db/raw-bank-files';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { bytesOf, fileWith, sha256 } from '../helpers/raw-files';

let db: TestDatabase;
let dir: string;
/** Two workers' own pools on the one database. */
let first: Knex;
let second: Knex;

beforeAll(async () => {
  db = await createTestDatabase();
  dir = mkdtempSync(path.join(tmpdir(), 'skil-raw-store-'));
  first = createKnex(db.url, { poolMax: 2 });
  second = createKnex(db.url, { poolMax: 2 });
});
afterAll(async () => {
  await Promise.all([first?.destroy(), second?.destroy()]);
  await db?.drop();
  await rm(dir, { recursive: true, force: true });
});

const fileOf = (bytes: Buffer) => fileWith(dir, bytes);

test('a file stored by one worker is read whole by another, across chunks', async () => {
  const bytes = randomBytes(3 * 1024 * 1024 + 12345);
  await createPostgresRawFileStore(first).put(sha256(bytes), fileOf(bytes));
  const read = await bytesOf(createPostgresRawFileStore(second).open(sha256(bytes)));
  expect(read.length).toBe(bytes.length);
  expect(read.equals(bytes)).toBe(true);
  expect(
    await db
      .knex('raw_bank_file_chunks')
      .where({ sha256: sha256(bytes) })
      .count('* as n'),
  ).toEqual([{ n: 4 }]);
});

test('the same bytes stored by two workers at once, many times, are kept once', async () => {
  for (let round = 0; round < 10; round++) {
    const bytes = randomBytes(1024 * 1024 + round);
    const at = fileOf(bytes);
    await Promise.all([
      createPostgresRawFileStore(first).put(sha256(bytes), at),
      createPostgresRawFileStore(second).put(sha256(bytes), at),
    ]);
    expect(
      await db
        .knex('raw_bank_files')
        .where({ sha256: sha256(bytes) })
        .count('* as n'),
    ).toEqual([{ n: 1 }]);
    expect((await bytesOf(createPostgresRawFileStore(first).open(sha256(bytes)))).equals(bytes)).toBe(true);
  }
});

test('an empty file round-trips; a file not in the store is an error naming it', async () => {
  const empty = Buffer.alloc(0);
  await createPostgresRawFileStore(first).put(sha256(empty), fileOf(empty));
  expect((await bytesOf(createPostgresRawFileStore(second).open(sha256(empty)))).length).toBe(0);
  const missing = 'f'.repeat(64);
  await expect(bytesOf(createPostgresRawFileStore(second).open(missing))).rejects.toThrow(missing);
});
