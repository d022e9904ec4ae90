import { confinePath } from '../../simulators/bank/sftp-paths';

const ROOT = '/srv/bank';

test.each([
  ['/', '/', '/srv/bank'],
  ['.', '/', '/srv/bank'],
  ['', '/', '/srv/bank'],
  ['/inbox/file.xml', '/inbox/file.xml', '/srv/bank/inbox/file.xml'],
  ['inbox/file.xml', '/inbox/file.xml', '/srv/bank/inbox/file.xml'],
  ['/inbox/../outbox/x', '/outbox/x', '/srv/bank/outbox/x'],
  ['/inbox/./x', '/inbox/x', '/srv/bank/inbox/x'],
  ['//inbox//x', '/inbox/x', '/srv/bank/inbox/x'],
])('%s stays inside as %s', (path, virtual, real) => {
  expect(confinePath(ROOT, path)).toEqual({ virtual, real });
});

test.each([
  '..',
  '/..',
  '/../etc/passwd',
  'inbox/../../x',
  '/inbox/../../bank-other/x',
  '../bank/x',
  '/inbox/x\0.xml',
])('%s is refused', (path) => {
  expect(confinePath(ROOT, path)).toBeUndefined();
});
