import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * One composition root per process: each `create…Service` factory that services/ exports is
 * called in at most one non-test file of any one process, so a service is wired in one place and
 * two surfaces of a process never hold differently configured copies of it (the API process once
 * had its checkout built in three places and its device flow in two, with different settings).
 *
 * What counts as a process is read from the code, not from a list, so that services built in a new
 * place (the worker's `worker/create-worker.ts`, say) are held to the rule without editing this
 * test. A process is everything a program's entry file loads at run time: the entry files are the
 * source files no other source file imports (`api/main.ts`, `worker/main.ts`, the launchers in
 * `stack/`, the CLI, tools, benchmarks), and a file belongs to every process whose entry reaches it
 * through value imports (`import type` loads nothing). A launcher that spawns another program by
 * path (`stack/start.ts` runs `api/main.ts` and `worker/main.ts` as child processes) does not
 * import it, so the API and the worker stay separate processes, and each may build the same service
 * once. Calls in several places of one file are one call site: the composition root builds the
 * transaction-bound copies of a service (a dry run, an inbound webhook's transaction) beside the
 * shared one. A service that builds another service inside itself is a second call site, so
 * services receive the services they use from the root instead. Test files are not processes.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const SOURCE_DIRS = [
  'domain',
  'db',
  'migrations',
  'api',
  'workflows',
  'activities',
  'adapters',
  'worker',
  'web',
  'stack',
  'engine',
  'services',
  'simulators',
  'html',
  'sdk',
  'cli',
  'tools',
  'bench',
];

function sourceFiles(dir: string): string[] {
  const abs = path.join(ROOT, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs).flatMap((name) => {
    const rel = path.join(dir, name);
    if (statSync(path.join(ROOT, rel)).isDirectory()) return sourceFiles(rel);
    return /\.ts$/.test(name) && !/\.(test|d)\.ts$/.test(name) ? [rel.split(path.sep).join('/')] : [];
  });
}

interface Parsed {
  /** Files this one loads at run time (value imports, re-exports, `import()` and `require`). */
  imports: string[];
  /** Each identifier called in this file, after undoing `import { x as y }` renames. */
  calls: Set<string>;
  /** The file starts its program when run, although another imports it (`require.main === module`). */
  runsItself: boolean;
}

function resolveImport(from: string, spec: string, files: Set<string>): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  return [`${base}.ts`, `${base}/index.ts`, base].find((f) => files.has(f)) ?? null;
}

function parse(file: string, files: Set<string>): Parsed {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022);
  const imports: string[] = [];
  const renamed = new Map<string, string>();
  const calls = new Set<string>();
  const load = (spec: ts.Expression | undefined) => {
    if (!spec || !ts.isStringLiteral(spec)) return;
    const target = resolveImport(file, spec.text, files);
    if (target) imports.push(target);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      if (!clause?.isTypeOnly) load(node.moduleSpecifier);
      const named = clause?.namedBindings;
      if (named && ts.isNamedImports(named)) {
        for (const s of named.elements) if (s.propertyName) renamed.set(s.name.text, s.propertyName.text);
      }
    } else if (ts.isExportDeclaration(node)) {
      if (!node.isTypeOnly) load(node.moduleSpecifier);
    } else if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) load(node.arguments[0]);
      if (ts.isIdentifier(node.expression)) {
        if (node.expression.text === 'require') load(node.arguments[0]);
        calls.add(node.expression.text);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return {
    imports,
    calls: new Set([...calls].map((c) => renamed.get(c) ?? c)),
    runsItself: /\brequire\.main === module\b/.test(text),
  };
}

/** The `create…Service` factories services/ exports, by name. */
function serviceFactories(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files.filter((f) => f.startsWith('services/'))) {
    const text = readFileSync(path.join(ROOT, file), 'utf8');
    for (const m of text.matchAll(/^export (?:async )?(?:function|const) (create\w*Service)\b/gm))
      names.add(m[1]!);
  }
  return names;
}

function reachable(entry: string, graph: Map<string, Parsed>): Set<string> {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    for (const next of graph.get(file)?.imports ?? []) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

describe('composition roots', () => {
  const files = SOURCE_DIRS.flatMap(sourceFiles);
  const fileSet = new Set(files);
  const graph = new Map(files.map((f) => [f, parse(f, fileSet)]));
  const factories = serviceFactories(files);
  const imported = new Set([...graph.values()].flatMap((p) => p.imports));
  const entries = files.filter((f) => !imported.has(f) || graph.get(f)!.runsItself);

  it('sees the processes and the factories it is about', () => {
    expect(entries).toEqual(expect.arrayContaining(['api/main.ts', 'worker/main.ts', 'stack/start.ts']));
    // The launchers spawn the API and the worker; neither process loads the other's root.
    expect(reachable('stack/start.ts', graph).has('api/main.ts')).toBe(false);
    expect(reachable('stack/start.ts', graph).has('worker/main.ts')).toBe(false);
    expect(reachable('api/main.ts', graph).has('worker/create-worker.ts')).toBe(false);
    expect(reachable('worker/main.ts', graph).has('api/compose.ts')).toBe(false);
    expect(factories.has('createCheckoutService')).toBe(true);
    expect(factories.has('createDeviceService')).toBe(true);
    // The API process builds its services in one file, and the pages receive them built.
    const apiCallers = [...reachable('api/main.ts', graph)].filter((f) =>
      graph.get(f)!.calls.has('createCheckoutService'),
    );
    expect(apiCallers).toEqual(['api/compose.ts']);
  });

  it('builds each service in at most one file per process', () => {
    const twice: string[] = [];
    for (const entry of entries) {
      const loaded = [...reachable(entry, graph)].sort();
      for (const factory of [...factories].sort()) {
        const callers = loaded.filter((f) => graph.get(f)!.calls.has(factory));
        if (callers.length > 1) twice.push(`${entry}: ${factory} in ${callers.join(', ')}`);
      }
    }
    expect(twice).toEqual([]);
  });
});
