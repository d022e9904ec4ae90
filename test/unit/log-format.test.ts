import { stripVTControlCharacters } from 'node:util';
import { resolveLogFormat } from '../../stack/log-format';
import { createLinePrettifier } from '../../stack/pretty-lines';

describe('resolveLogFormat (decision 0206)', () => {
  test.each([
    ['auto', true, undefined, 'pretty'],
    ['auto', true, 'development', 'pretty'],
    ['auto', true, 'production', 'json'],
    ['auto', false, undefined, 'json'],
    ['auto', undefined, undefined, 'json'],
    ['json', true, undefined, 'json'],
    ['pretty', false, 'production', 'pretty'],
  ] as const)('%s, stdout a terminal: %s, NODE_ENV %s → %s', (setting, tty, env, expected) => {
    expect(resolveLogFormat(setting, tty, env)).toBe(expected);
  });
});

test("a child's JSON line becomes one readable line; anything else passes as it came", () => {
  const pretty = createLinePrettifier();
  const line = JSON.stringify({
    level: 30,
    time: Date.UTC(2026, 11, 2, 12),
    name: 'skil-api',
    msg: 'API listening',
    port: 3000,
  });
  const out = stripVTControlCharacters(pretty(line));
  expect(out).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: \(skil-api\) API listening \{"port":3000\}\n$/);
  expect(pretty('webpack compiled successfully')).toBe('webpack compiled successfully\n');
  expect(pretty('{not json')).toBe('{not json\n');
});
