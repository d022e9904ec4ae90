import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

// ARCHITECTURE.md is the record of the layout: its code map must name every top-level folder, and
// each room's "may import" cell must say what the lint enforces, so the page cannot drift from code.
const root = path.resolve(__dirname, '..', '..');
const doc = readFileSync(path.join(root, 'ARCHITECTURE.md'), 'utf8');
// The lint rule is an ES module, which jest's CommonJS runtime cannot load: read its table in a child.
const layout = JSON.parse(
  execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "import { LAYOUT } from './tools/eslint-layout.mjs'; console.log(JSON.stringify(LAYOUT))",
    ],
    { cwd: root, encoding: 'utf8' },
  ),
) as Record<string, string[]>;

// Folders that are made by tools, not kept in the repository.
const GENERATED = new Set(['node_modules', 'coverage', 'dist']);

function codeMap(): Map<string, string> {
  const rows = new Map<string, string>();
  const section = doc.slice(doc.indexOf('## Code map'), doc.indexOf('\n## ', doc.indexOf('## Code map') + 1));
  for (const line of section.split('\n')) {
    const match = /^\| `([^`/]+)\/` \|.*\| ([^|]*) \|$/.exec(line);
    if (match) rows.set(match[1]!, match[2]!.trim());
  }
  return rows;
}

/** The rooms a "may import" cell names, as the lint spells them; prose in parentheses is ignored. */
function namedRooms(cell: string): string[] {
  return [...cell.replace(/\(.*\)/g, '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!).sort();
}

describe('ARCHITECTURE.md', () => {
  const rows = codeMap();

  it('names every top-level folder in its code map', () => {
    const folders = readdirSync(root, { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !GENERATED.has(e.name))
      .map((e) => e.name);
    expect(folders.length).toBeGreaterThan(15);
    expect(folders.filter((name) => !rows.has(name))).toEqual([]);
  });

  it('gives each room the imports the layout lint enforces', () => {
    for (const [room, allowed] of Object.entries(layout)) {
      expect({ room, cell: rows.get(room) }).toEqual({ room, cell: expect.any(String) });
      const cell = rows.get(room)!;
      const expected = [...allowed].sort();
      if (expected.length === 0) expect({ room, cell }).toEqual({ room, cell: 'nothing' });
      else expect({ room, rooms: namedRooms(cell) }).toEqual({ room, rooms: expected });
    }
  });

  it('is linked from the README', () => {
    expect(readFileSync(path.join(root, 'README.md'), 'utf8')).toMatch(/\]\(ARCHITECTURE\.md(#[^)]*)?\)/);
  });
});
