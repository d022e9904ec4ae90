import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { historyFromJSON, historyToJSON } from '@temporalio/common/lib/proto-utils';
import { startTestStack, type TestStack } from '../helpers/stack';
import { startReceiver } from '../helpers/receiver';

// Determinism guard (STYLE.md §7): workflow code must replay the histories it produced before.
// Histories recorded from earlier versions live in test/fixtures/histories; record a new one after a
// deliberate, patched change with RECORD_HISTORIES=1.
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'histories');
const bundle = () => ({ workflowBundle: { codePath: process.env.SKIL_TEST_WORKFLOW_BUNDLE! } });

let stack: TestStack;

beforeAll(async () => {
  stack = await startTestStack({ schedule: [0, 50, 50, 50, 50] });
});
afterAll(async () => {
  await stack.stop();
});

test('recorded workflow histories replay without nondeterminism', async () => {
  const files = (await readdir(FIXTURES)).filter((f) => f.endsWith('.json'));
  expect(files.length).toBeGreaterThan(0);
  for (const file of files) {
    const history = historyFromJSON(JSON.parse(await readFile(path.join(FIXTURES, file), 'utf8')));
    await Worker.runReplayHistory(bundle(), history, file.replace(/\.json$/, ''));
  }
});

test("a channel's history from this code replays", async () => {
  const receiver = await startReceiver((n) => (n < 3 ? 500 : 200));
  try {
    const m = await stack.merchant();
    const channel = await stack.api(m.testKey, '/v1/notification-channels', {
      method: 'POST',
      json: { type: 'webhook', config: { url: receiver.url }, event_subscriptions: ['*'] },
    });
    await stack.api(m.testKey, '/v1/notification-channels/test-webhooks', { method: 'POST', json: {} });
    await receiver.waitFor(3, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    const handle = stack.client.workflow.getHandle(`webhooks/${channel.body.id}`);
    const history = await handle.fetchHistory();
    expect(history.events!.length).toBeGreaterThan(10);
    await Worker.runReplayHistory(bundle(), history, handle.workflowId);
    if (process.env.RECORD_HISTORIES === '1') {
      await writeFile(path.join(FIXTURES, 'webhook-channel-three-attempts.json'), historyToJSON(history));
    }
  } finally {
    await receiver.close();
  }
});
