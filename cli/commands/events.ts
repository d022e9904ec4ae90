import type { Command } from 'commander';
import { clientOf, type GlobalOptions } from '../context';
import { printJson } from '../output';

/** `skil events list|get|resend`: the events ledger (spec §4.4). */
export function registerEvents(program: Command, globals: () => GlobalOptions): void {
  const events = program.command('events').description('Read the events ledger and resend events');

  events
    .command('list')
    .description('List events, oldest first')
    .option('--limit <n>', 'how many (1 to 100)', '25')
    .option('--type <type>', 'only this event type')
    .option('--after <time>', 'only events after this ISO time')
    .option('--starting-after <id>', 'only events after this event id')
    .action(async (opts: { limit: string; type?: string; after?: string; startingAfter?: string }) => {
      const g = globals();
      const page = await clientOf(g).events.list({
        limit: Number(opts.limit),
        ...(opts.type !== undefined && { type: opts.type }),
        ...(opts.after !== undefined && { after: opts.after }),
        ...(opts.startingAfter !== undefined && { starting_after: opts.startingAfter }),
      });
      if (g.json) return printJson(page);
      for (const e of page.data) process.stdout.write(`${e.created_at}  ${e.type}  ${e.id}\n`);
    });

  events
    .command('get')
    .description('Show one event')
    .argument('<id>', 'event id (evt_…)')
    .action(async (id: string) => printJson(await clientOf(globals()).events.retrieve(id)));

  events
    .command('resend')
    .description('Send an event to a webhook endpoint now')
    .argument('<id>', 'event id (evt_…)')
    .requiredOption('--channel <id>', 'the webhook endpoint (notification channel) to send it to')
    .action(async (id: string, opts: { channel: string }) => {
      const g = globals();
      const delivery = await clientOf(g).events.resend(id, { channel: opts.channel });
      if (g.json) return printJson(delivery);
      process.stdout.write(`Sending ${id} to ${opts.channel} (delivery ${delivery.id})\n`);
    });
}
