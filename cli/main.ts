import { Command, CommanderError } from 'commander';
import { SkilError } from '@skil/sdk';
import { CliError, type GlobalOptions } from './context';
import { color } from './output';
import { registerEvents } from './commands/events';
import { registerListen } from './commands/listen';
import { registerLogin } from './commands/login';
import { registerResources } from './commands/resources';
import { registerTrigger } from './commands/trigger';
import { registerWebhooks } from './commands/webhooks';

const program = new Command('skil')
  .description('The Skil command line: log in, receive test events locally, trigger them, call the API')
  .version('1.0.0')
  .option('--profile <name>', 'which stored login to use', 'default')
  .option('--base-url <url>', 'the API address (default: SKIL_BASE_URL or http://localhost:3000)')
  .option('--json', 'print API objects as JSON')
  .showHelpAfterError()
  .exitOverride();

const globals = (): GlobalOptions => program.opts<GlobalOptions>();
registerLogin(program, globals);
registerListen(program, globals);
registerTrigger(program, globals);
registerWebhooks(program, globals);
registerEvents(program, globals);
registerResources(program, globals);

async function main(): Promise<void> {
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    process.exitCode = report(err);
  }
}

/** The API's own message (and the field at fault) on stderr, never a stack trace; the exit code. */
function report(err: unknown): number {
  if (err instanceof CommanderError) return err.exitCode;
  if (err instanceof SkilError) {
    const where = err.param ? ` (${err.param})` : '';
    const code = err.code ? ` [${err.code}]` : '';
    process.stderr.write(`${color.red('Error:')} ${err.message}${where}${code}\n`);
    return 1;
  }
  if (err instanceof CliError) {
    process.stderr.write(`${color.red('Error:')} ${err.message}\n`);
    return 1;
  }
  process.stderr.write(`${color.red('Error:')} ${err instanceof Error ? err.message : String(err)}\n`);
  return 1;
}

void main();
