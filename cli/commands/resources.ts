import type { Command } from 'commander';
import { clientOf, CliError, type GlobalOptions } from '../context';
import { printJson } from '../output';

type Params = Record<string, unknown>;

/** A resource's collection path and which of its calls exist (and with which method it updates). */
interface ResourceCommand {
  name: string;
  description: string;
  path: string;
  create?: boolean;
  update?: 'post' | 'patch';
  del?: string;
  /** Named flags for `create`: flag → field (besides `-d field=value` for any field). */
  createFlags?: { flag: string; field: string; description: string; default?: string }[];
}

const RESOURCES: ResourceCommand[] = [
  {
    name: 'customers',
    description: 'Customers',
    path: '/v1/customers',
    create: true,
    update: 'patch',
    del: 'Delete',
    createFlags: [
      { flag: '--name <name>', field: 'name', description: 'full name or company' },
      { flag: '--email <email>', field: 'email', description: 'email address' },
      { flag: '--kennitala <kt>', field: 'kennitala', description: 'Icelandic id number (10 digits)' },
    ],
  },
  {
    name: 'checkout',
    description: 'Checkout sessions',
    path: '/v1/checkout/sessions/',
    create: true,
    createFlags: [
      { flag: '--amount <isk>', field: 'amount', description: 'amount in ISK' },
      { flag: '--currency <code>', field: 'currency', description: 'currency', default: 'ISK' },
      {
        flag: '--success-url <url>',
        field: 'success_url',
        description: 'where the buyer goes after paying',
        default: 'http://localhost:4242/success',
      },
    ],
  },
  {
    name: 'payment-intents',
    description: 'Payment intents (payments)',
    path: '/v1/payment-intents',
    create: true,
  },
  {
    name: 'refunds',
    description: 'Refunds',
    path: '/v1/refunds',
    create: true,
    createFlags: [
      { flag: '--payment-intent <id>', field: 'payment_intent', description: 'the payment to refund' },
      { flag: '--amount <isk>', field: 'amount', description: 'part of it (default: all)' },
    ],
  },
  {
    name: 'payment-links',
    description: 'Payment links',
    path: '/v1/payment-links',
    create: true,
    update: 'post',
  },
  {
    name: 'products',
    description: 'Products',
    path: '/v1/products',
    create: true,
    update: 'patch',
    del: 'Delete',
    createFlags: [{ flag: '--name <name>', field: 'name', description: 'product name' }],
  },
  { name: 'prices', description: 'Prices', path: '/v1/prices', create: true, update: 'patch' },
  {
    name: 'subscriptions',
    description: 'Subscriptions',
    path: '/v1/subscriptions',
    create: true,
    update: 'post',
    del: 'Cancel',
  },
  { name: 'claims', description: 'Bank claims (kröfur)', path: '/v1/claims', create: true, update: 'post' },
  {
    name: 'coupons',
    description: 'Coupons',
    path: '/v1/coupons',
    create: true,
    update: 'patch',
    del: 'Delete',
  },
];

/**
 * `skil <resource> create|list|get|update|delete`. Any field goes in with `-d field=value`
 * (`-d metadata[order]=42` for nested ones); the API's validation is the one source of truth.
 */
export function registerResources(program: Command, globals: () => GlobalOptions): void {
  for (const r of RESOURCES) {
    const cmd = program.command(r.name).description(r.description);
    const item = (id: string) => `${r.path.replace(/\/$/, '')}/${encodeURIComponent(id)}`;

    if (r.create) {
      const create = cmd.command('create').description(`Create (${r.description.toLowerCase()})`);
      for (const f of r.createFlags ?? []) create.option(f.flag, f.description, f.default);
      dataOption(create).action(async (opts: Record<string, unknown> & { data: string[] }) => {
        const params = parseData(opts.data);
        for (const f of r.createFlags ?? []) {
          const value = opts[camel(f.flag)];
          if (value !== undefined) params[f.field] = value;
        }
        const made = await clientOf(globals()).rawRequest<{ id: string }>('post', r.path, params);
        if (globals().json) printJson(made);
        else process.stdout.write(`${made.id}\n`);
      });
    }

    dataOption(
      cmd.command('list').description('List, newest first').option('--limit <n>', 'how many', '10'),
    ).action(async (opts: { limit: string; data: string[] }) => {
      const page = await clientOf(globals()).rawRequest<{ data: ({ id: string } & Params)[] }>(
        'get',
        r.path,
        {
          limit: opts.limit,
          ...parseData(opts.data),
        },
      );
      if (globals().json) printJson(page);
      else for (const one of page.data) process.stdout.write(`${summary(one)}\n`);
    });

    cmd
      .command('get')
      .description('Show one')
      .argument('<id>')
      .action(async (id: string) => printJson(await clientOf(globals()).rawRequest('get', item(id))));

    if (r.update) {
      const method = r.update;
      dataOption(cmd.command('update').description('Change fields').argument('<id>')).action(
        async (id: string, opts: { data: string[] }) =>
          printJson(await clientOf(globals()).rawRequest(method, item(id), parseData(opts.data))),
      );
    }
    if (r.del) {
      cmd
        .command('delete')
        .description(r.del)
        .argument('<id>')
        .action(async (id: string) => printJson(await clientOf(globals()).rawRequest('delete', item(id))));
    }
  }
}

function dataOption(cmd: Command): Command {
  return cmd.option(
    '-d, --data <field=value>',
    'a field to send, repeatable; nested with brackets: metadata[key]=value',
    (value: string, previous: string[]) => [...previous, value],
    [] as string[],
  );
}

/** `a=1`, `metadata[k]=v`, `items[0][price]=x` → a nested object. */
export function parseData(pairs: string[]): Params {
  const params: Params = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new CliError(`-d expects field=value (got '${pair}')`);
    const path = pair
      .slice(0, eq)
      .split(/\[|\]\[|\]/)
      .filter((p) => p.length > 0);
    let target: Record<string, unknown> = params;
    for (const [i, key] of path.entries()) {
      if (i === path.length - 1) target[key] = pair.slice(eq + 1);
      else target = (target[key] ??= /^\d+$/.test(path[i + 1]!) ? [] : {}) as Record<string, unknown>;
    }
  }
  return params;
}

function camel(flag: string): string {
  return flag
    .replace(/^--/, '')
    .replace(/ .*$/, '')
    .replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
}

function summary(item: { id: string } & Record<string, unknown>): string {
  const fields = ['status', 'amount', 'name', 'email', 'url'].filter(
    (f) => item[f] !== undefined && item[f] !== null,
  );
  return [item.id, ...fields.map((f) => `${f}=${String(item[f])}`)].join('  ');
}
