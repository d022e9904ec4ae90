// The layout table of ARCHITECTURE.md as a lint rule: each top-level folder (room) may import only
// the rooms listed for it. An import is resolved against the importing file, so the rule sees the
// room a path lands in, however many `../` it takes to get there.
import path from 'node:path';

/**
 * Who may import whom. A room missing from the table is not checked (test/, bench/ and tools/ may
 * import everything). `workflows/contract` is the one file of workflows/ that the other rooms reach.
 */
export const LAYOUT = {
  domain: [],
  html: ['domain'],
  stack: ['domain'],
  db: ['domain', 'stack', 'migrations'],
  migrations: ['domain'],
  workflows: ['domain', 'workflows/contract'],
  engine: ['domain', 'db', 'adapters', 'stack', 'workflows/contract'],
  adapters: ['domain', 'stack'],
  simulators: ['domain', 'adapters', 'stack', 'html'],
  services: ['domain', 'db', 'engine', 'adapters', 'stack', 'workflows/contract', 'html'],
  activities: ['domain', 'services', 'engine', 'adapters', 'stack', 'workflows/contract'],
  api: ['domain', 'services', 'stack'],
  web: ['domain', 'services', 'stack', 'html'],
  sdk: [],
  cli: ['sdk'],
};

/**
 * Files that assemble the parts of a process (composition roots) and so may import any room;
 * `api/app.ts` is also the one file where the API mounts the pages of `web/` (decision 0097).
 */
export const COMPOSITION_ROOTS = [
  'api/main.ts',
  'api/app.ts',
  'api/compose.ts',
  'worker/**',
  'stack/start.ts',
  'stack/test-world.ts',
  'stack/cluster.ts',
  'stack/seed-demo.ts',
  'stack/operator-create.ts',
  'stack/embedded-postgres.ts',
  'stack/temporal-cli.ts',
  'stack/temporal-server.ts',
  'stack/claims-bank-from-config.ts',
  'stack/access-points-from-config.ts',
  'stack/collectors-from-config.ts',
];

/**
 * Imports a room may make by type only: workflow code calls activities through proxies; rows in db/
 * keep the bank's wire shapes (claim terms as sent, a card token), typed by their adapter (decision 0097).
 */
const TYPE_ONLY = { workflows: ['activities'], db: ['adapters'] };

function roomOf(rel) {
  const parts = rel.split('/');
  if (parts.length < 2) return null;
  if (parts[0] === 'workflows' && parts[1].replace(/\.ts$/, '') === 'contract') return 'workflows/contract';
  return parts[0];
}

const layoutRule = {
  meta: {
    type: 'problem',
    docs: { description: 'Each folder imports only the folders its row of the layout table names' },
    schema: [],
    messages: {
      forbidden:
        '{{from}}/ may not import {{to}}/ (layout table, ARCHITECTURE.md): it may import {{allowed}}.',
      typeOnly: '{{from}}/ may import {{to}}/ by type only.',
    },
  },
  create(context) {
    const root = context.cwd;
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    const from = file.split('/')[0];
    const allowed = LAYOUT[from];
    if (!allowed) return {};
    function check(node, source, typeOnly) {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.relative(root, path.resolve(path.dirname(context.filename), source));
      const to = roomOf(target.split(path.sep).join('/') + (target.includes(path.sep) ? '' : '/'));
      if (!to || to === from || to.startsWith('..')) return;
      if (from === 'workflows' && to === 'workflows/contract') return;
      const toRoom = to.split('/')[0];
      // `workflows/contract` opens that one file, never the rest of workflows/.
      if (allowed.includes(to) || (to !== 'workflows/contract' && allowed.includes(toRoom))) return;
      if ((TYPE_ONLY[from] ?? []).includes(toRoom)) {
        if (!typeOnly) context.report({ node, messageId: 'typeOnly', data: { from, to: toRoom } });
        return;
      }
      context.report({
        node,
        messageId: 'forbidden',
        data: { from, to, allowed: allowed.length ? allowed.join(', ') : 'no other folder' },
      });
    }
    const allTypes = (node) =>
      node.importKind === 'type' ||
      (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type'));
    return {
      ImportDeclaration: (node) => check(node, node.source.value, allTypes(node)),
      ExportNamedDeclaration: (node) =>
        node.source && check(node, node.source.value, node.exportKind === 'type'),
      ExportAllDeclaration: (node) => check(node, node.source.value, node.exportKind === 'type'),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value, false),
      CallExpression: (node) =>
        node.callee.type === 'Identifier' &&
        node.callee.name === 'require' &&
        node.arguments[0]?.type === 'Literal' &&
        check(node, node.arguments[0].value, false),
    };
  },
};

export const layoutPlugin = { rules: { layout: layoutRule } };
