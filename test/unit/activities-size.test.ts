import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

// Activities are thin surfaces over services (ARCHITECTURE.md, "Code map"): call a service,
// heartbeat, map failures. A file that grows past this has business logic that belongs in services/.
const MAX_LINES = 120;
const dir = path.resolve(__dirname, '..', '..', 'activities');

describe('activities/', () => {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

  it('has activity files to check', () => {
    expect(files.length).toBeGreaterThan(5);
  });

  it(`keeps every file at or under ${MAX_LINES} lines`, () => {
    const over = files
      .map((file) => ({
        file,
        lines: readFileSync(path.join(dir, file), 'utf8').trimEnd().split('\n').length,
      }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(over).toEqual([]);
  });
});
