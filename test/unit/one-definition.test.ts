import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Some things are defined once, in domain/, and imported everywhere else: the ISK formatter
 * (`domain/isk.ts`), the locale type (`domain/locale.ts`) and a catalog line's pricing
 * (`domain/line-pricing.ts`). A second copy drifts from the first (four ISK formatters had grown
 * three ways of writing a negative amount), so this test reads the whole source tree, test/ aside,
 * and counts the definitions.
 */

const ROOT = path.resolve(__dirname, '../..');
const SKIPPED_DIRS = new Set(['node_modules', 'test', 'dist', 'coverage']);
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, out);
    else if (entry.isFile() && SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

interface Definitions {
  /** `file:line` of each function (declaration, or a variable, property or method holding one) by name. */
  functions: Map<string, string[]>;
  /** `file:line` of each type alias that is exactly `'is' | 'en'`, in either order. */
  localeAliases: string[];
}

const isFunctionNode = (node: ts.Node | undefined) =>
  !!node && (ts.isArrowFunction(node) || ts.isFunctionExpression(node));

function isLocaleUnion(type: ts.TypeNode): boolean {
  while (ts.isParenthesizedTypeNode(type)) type = type.type;
  if (!ts.isUnionTypeNode(type) || type.types.length !== 2) return false;
  const literals = type.types.map((t) =>
    ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal) ? t.literal.text : null,
  );
  return literals.includes('is') && literals.includes('en');
}

function collect(files: { name: string; text: string }[]): Definitions {
  const found: Definitions = { functions: new Map(), localeAliases: [] };
  for (const { name, text } of files) {
    const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
    const where = (node: ts.Node) =>
      `${name}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
    const defines = (id: ts.Node | undefined, node: ts.Node) => {
      if (!id || !(ts.isIdentifier(id) || ts.isStringLiteral(id))) return;
      const list = found.functions.get(id.text) ?? [];
      list.push(where(node));
      found.functions.set(id.text, list);
    };
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionDeclaration(node) && node.body) defines(node.name, node);
      else if (ts.isMethodDeclaration(node) && node.body) defines(node.name, node);
      else if (ts.isVariableDeclaration(node) && isFunctionNode(node.initializer)) defines(node.name, node);
      else if (ts.isPropertyAssignment(node) && isFunctionNode(node.initializer)) defines(node.name, node);
      else if (ts.isPropertyDeclaration(node) && isFunctionNode(node.initializer)) defines(node.name, node);
      else if (ts.isTypeAliasDeclaration(node) && isLocaleUnion(node.type))
        found.localeAliases.push(where(node));
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

const tree = collect(
  sourceFiles(ROOT).map((file) => ({
    name: path.relative(ROOT, file).split(path.sep).join('/'),
    text: readFileSync(file, 'utf8'),
  })),
);
const definitionsOf = (name: string) => tree.functions.get(name) ?? [];

describe('the detector', () => {
  const fixture = collect([
    {
      name: 'a.ts',
      text: `export function formatIsk(a: number) { return String(a); }
        type A = 'is' | 'en';
        export const priceLine = (x: number) => x;`,
    },
    {
      name: 'b.ts',
      text: `const formatIsk = function (a: number) { return String(a); };
        export type B = ('en' | 'is');
        type C = 'is' | 'en' | 'de';
        declare function priceLine(x: number): number;
        const o = { priceLine(x: number) { return x; } };`,
    },
  ]);

  test('finds function declarations, function-valued variables and methods', () => {
    expect(fixture.functions.get('formatIsk')).toEqual(['a.ts:1', 'b.ts:1']);
    expect(fixture.functions.get('priceLine')).toEqual(['a.ts:3', 'b.ts:5']);
  });

  test("finds `'is' | 'en'` aliases in either order, and only those", () => {
    expect(fixture.localeAliases).toEqual(['a.ts:2', 'b.ts:2']);
  });
});

describe('the source tree (test/ aside)', () => {
  test('reads the source rooms', () => {
    const files = sourceFiles(ROOT).map((f) => path.relative(ROOT, f).split(path.sep).join('/'));
    for (const room of ['domain/', 'services/', 'web/', 'simulators/'])
      expect(files.some((f) => f.startsWith(room))).toBe(true);
    expect(files.some((f) => f.startsWith('test/'))).toBe(false);
  });

  test('formatIsk is defined once, in domain/isk.ts', () => {
    expect(definitionsOf('formatIsk')).toEqual([expect.stringMatching(/^domain\/isk\.ts:\d+$/)]);
  });

  test("the type `'is' | 'en'` is declared once, as Locale in domain/locale.ts", () => {
    expect(tree.localeAliases).toEqual([expect.stringMatching(/^domain\/locale\.ts:\d+$/)]);
  });

  test('priceLine is defined at most once, and once when domain/line-pricing.ts exists', () => {
    const found = definitionsOf('priceLine');
    expect(found.length).toBeLessThanOrEqual(1);
    if (existsSync(path.join(ROOT, 'domain/line-pricing.ts'))) expect(found).toHaveLength(1);
  });
});
