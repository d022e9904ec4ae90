import { base62Time, newId, randomBase62 } from '../../domain/ids';
import { defaultSharedBuffers } from '../../stack/embedded-postgres';

describe('object ids', () => {
  it('keep the prefix and 24 base62 characters', () => {
    expect(newId('evt')).toMatch(/^evt_[0-9A-Za-z]{24}$/);
  });

  it('sort by creation time in byte order, as the database compares them (C collation)', () => {
    const times = [0, 61, 62, 3_843, 3_844, Date.UTC(2026, 10, 26), Date.UTC(2026, 10, 26) + 1, 62 ** 8 - 1];
    const encoded = times.map(base62Time);
    expect(encoded.every((t) => t.length === 8)).toBe(true);
    const byBytes = [...encoded].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    expect(byBytes).toEqual(encoded);
    expect(base62Time(0)).toBe('00000000');
    expect(base62Time(62)).toBe('00000010');
  });

  it('made in the same millisecond differ in their random part', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId('pi')));
    expect(ids.size).toBe(10_000);
  });
});

describe('random base62 text', () => {
  it('uses every character equally often, across many refills of the entropy block', () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++)
      for (const c of randomBase62(31)) counts.set(c, (counts.get(c) ?? 0) + 1);
    // 620,000 characters: 10,000 expected of each of the 62, a standard deviation of about 99.
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(Math.abs(n - 10_000)).toBeLessThan(600);
  });

  it('never hands out the same bytes twice', () => {
    const tokens = new Set(Array.from({ length: 5_000 }, () => randomBase62(32)));
    expect(tokens.size).toBe(5_000);
  });
});

describe('the embedded PostgreSQL buffers', () => {
  const GB = 2 ** 30;
  it('take a quarter of the machine, within 128 MB and 8 GB', () => {
    expect(defaultSharedBuffers(24 * GB)).toBe('6144MB');
    expect(defaultSharedBuffers(256 * 2 ** 20)).toBe('128MB');
    expect(defaultSharedBuffers(64 * GB)).toBe('8192MB');
  });
});
