import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CollectionAccount } from '../../simulators/bank/collection-account';

// The simulated bank saves its whole book after each acquirer report. A renewal day reports thousands
// at once (the chaos run: 10,000); each save serialising its own copy of the growing book held
// gigabytes and took the process down. Saves asked for while one waits to start are one write.
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'skil-book-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('2,000 reports saved at once are written in a few writes, and every one of them is on disk', async () => {
  const book = await CollectionAccount.open(dir);
  const stringify = jest.spyOn(JSON, 'stringify');
  const saves: Promise<void>[] = [];
  const ids = Array.from({ length: 2000 }, (_, i) => `auth_${i}`);
  for (const id of ids) {
    book.addAcquirerItem({
      id,
      kind: 'capture',
      authorization: id,
      amount: 2990,
      at: '2026-11-25T12:00:00Z',
      receivedDay: '2026-11-25',
    });
    saves.push(book.save());
  }
  await Promise.all(saves);
  const writes = stringify.mock.calls.filter(
    ([v]) => typeof v === 'object' && v !== null && 'acquirerItems' in v,
  ).length;
  stringify.mockRestore();
  expect(writes).toBeLessThanOrEqual(3);

  // Reopened from the file: every report is known (a second report of the same id is a duplicate).
  const reopened = await CollectionAccount.open(dir);
  const known = ids.filter(
    (id) =>
      !reopened.addAcquirerItem({
        id,
        kind: 'capture',
        authorization: id,
        amount: 2990,
        at: '2026-11-25T12:00:00Z',
        receivedDay: '2026-11-25',
      }),
  );
  expect(known).toHaveLength(2000);
});
