/**
 * The raw bank file store in an S3-compatible object store (decision 0179), against a real S3
 * server (gofakes3, test/helpers/s3-server.ts): what one worker's store puts, another's reads
 * whole; the same bytes put by two workers at once are one object; an empty file round-trips; a
 * missing one is an error naming it; a wrong bucket is a clear error, not a hang.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createS3RawFileStore, type S3StoreConfig } from '../../adapters/object-store/s3-raw-file-store';
import { startS3TestServer, type S3TestServer } from '../helpers/s3-server';
import { bytesOf, fileWith, sha256 } from '../helpers/raw-files';

let server: S3TestServer;
let dir: string;
let config: S3StoreConfig;

beforeAll(async () => {
  server = await startS3TestServer();
  dir = mkdtempSync(path.join(tmpdir(), 'skil-s3-store-'));
  config = {
    endpoint: server.endpoint,
    bucket: server.bucket,
    region: 'us-east-1',
    accessKeyId: 'skil-test',
    secretAccessKey: 'skil-test-secret',
    prefix: 'raw-bank-files/',
  };
  // Over two minutes only once per machine: the first run builds the S3 server from the Go module
  // proxy (test/helpers/s3-server.ts), minutes from a cold Go cache; later runs start it at once.
}, 600_000);
afterAll(async () => {
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
});

const fileOf = (bytes: Buffer) => fileWith(dir, bytes);
/** The keys in the bucket under the prefix, from the server's own listing (ListObjectsV2). */
async function keys(): Promise<string[]> {
  const xml = await (
    await fetch(`${server.endpoint}/${server.bucket}?list-type=2&prefix=raw-bank-files/`)
  ).text();
  return [...xml.matchAll(/<Key>([^<]+)<\/Key>/g)].map((m) => m[1]!);
}

test('a file put by one worker is read whole by another', async () => {
  const bytes = randomBytes(3 * 1024 * 1024 + 12345);
  await createS3RawFileStore(config).put(sha256(bytes), fileOf(bytes));
  const read = await bytesOf(createS3RawFileStore(config).open(sha256(bytes)));
  expect(read.length).toBe(bytes.length);
  expect(read.equals(bytes)).toBe(true);
  expect(await keys()).toContain(`raw-bank-files/${sha256(bytes)}`);
});

test('the same bytes put by two workers at once are one object', async () => {
  const before = (await keys()).length;
  for (let round = 0; round < 5; round++) {
    const bytes = randomBytes(256 * 1024 + round);
    const at = fileOf(bytes);
    await Promise.all([
      createS3RawFileStore(config).put(sha256(bytes), at),
      createS3RawFileStore(config).put(sha256(bytes), at),
    ]);
    expect((await bytesOf(createS3RawFileStore(config).open(sha256(bytes)))).equals(bytes)).toBe(true);
  }
  expect((await keys()).length).toBe(before + 5);
});

test('an empty file round-trips; a missing file and a missing bucket are errors naming them', async () => {
  const empty = Buffer.alloc(0);
  await createS3RawFileStore(config).put(sha256(empty), fileOf(empty));
  expect((await bytesOf(createS3RawFileStore(config).open(sha256(empty)))).length).toBe(0);
  const missing = 'f'.repeat(64);
  await expect(bytesOf(createS3RawFileStore(config).open(missing))).rejects.toThrow(
    `raw bank file ${missing} is not in the store`,
  );
  const noBucket = createS3RawFileStore({ ...config, bucket: 'no-such-bucket' });
  await expect(bytesOf(noBucket.open(missing))).rejects.toThrow(
    /object store: GET of raw bank file f+ answered 404 NoSuchBucket/,
  );
  const bytes = randomBytes(1000);
  await expect(noBucket.put(sha256(bytes), fileOf(bytes))).rejects.toThrow(/object store: .* answered 404/);
});
