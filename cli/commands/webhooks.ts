import type { Command } from 'commander';
import { clientOf, type GlobalOptions } from '../context';
import { color, printJson } from '../output';

/** `skil webhooks register|list|test|delete`: the key's webhook channels (spec §4.6). */
export function registerWebhooks(program: Command, globals: () => GlobalOptions): void {
  const webhooks = program.command('webhooks').description('Manage webhook endpoints');

  webhooks
    .command('register')
    .description('Register a webhook endpoint; prints its signing secret once')
    .requiredOption('--url <url>', 'the endpoint that receives events')
    .option('--events <types>', 'comma-separated event types, or * for all', '*')
    .action(async (opts: { url: string; events: string }) => {
      const g = globals();
      const channel = await clientOf(g).notificationChannels.create({
        type: 'webhook',
        config: { url: opts.url },
        event_subscriptions: splitList(opts.events) as never,
      });
      if (g.json) return printJson(channel);
      process.stdout.write(
        `Registered ${channel.id} → ${opts.url}\n` +
          `Signing secret (shown once, keep it safe): ${color.bold(String(channel.config.secret))}\n`,
      );
    });

  webhooks
    .command('list')
    .description('List webhook endpoints')
    .action(async () => {
      const g = globals();
      const page = await clientOf(g).notificationChannels.list({ limit: 100 });
      if (g.json) return printJson(page);
      for (const c of page.data) {
        process.stdout.write(
          `${c.id}  ${c.status}  ${c.config.url ?? ''}  ${c.event_subscriptions.join(',')}\n`,
        );
      }
    });

  webhooks
    .command('test')
    .description('Send a debug.check event to one endpoint, or to every enabled one')
    .argument('[id]', 'channel id')
    .action(async (id: string | undefined) => {
      const g = globals();
      const result = await clientOf(g).notificationChannels.sendTest(id ? { channel: id } : {});
      if (g.json) return printJson(result);
      for (const d of result.deliveries)
        process.stdout.write(`debug.check ${d.event} → ${d.channel} (${d.id})\n`);
    });

  webhooks
    .command('delete')
    .description('Delete a webhook endpoint')
    .argument('<id>', 'channel id')
    .action(async (id: string) => {
      const g = globals();
      const deleted = await clientOf(g).notificationChannels.del(id);
      if (g.json) return printJson(deleted);
      process.stdout.write(`Deleted ${id}\n`);
    });
}

export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}
