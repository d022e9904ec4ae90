import path from 'node:path';
import { Skil, SkilInvalidRequestError } from '@skil/sdk';
import type { Command } from 'commander';
import { saveProfile } from '../config';
import { baseUrlOf, CliError, type GlobalOptions } from '../context';
import { color, spinner } from '../output';

interface LoginOptions {
  envFile: string | false;
  browser: boolean;
}

/**
 * `skil login`: the device flow (spec §4.2, §5.4; RFC 8628). Shows the code, opens the approval page
 * when it can, polls at `poll_interval` (longer after `slow_down`) until approved, denied or expired,
 * stores the key in the profile and writes `SKIL_API_KEY` into the local env file (spec §1).
 */
export function registerLogin(program: Command, globals: () => GlobalOptions): void {
  program
    .command('login')
    .description('Log in through the dashboard and store a test-mode API key')
    .option('--env-file <path>', 'env file to write SKIL_API_KEY into', '.env')
    .option('--no-env-file', 'do not write an env file')
    .option('--no-browser', 'print the approval URL without opening a browser')
    .action(async (opts: LoginOptions) => {
      const g = globals();
      const baseUrl = baseUrlOf(g);
      const device = Skil.deviceAuthorization({ baseUrl });
      const start = await device.authorize({ client_name: 'skil CLI' });
      process.stdout.write(
        `Your code: ${color.bold(start.user_code)}\nApprove this device at ${color.cyan(start.verification_url)}\n`,
      );
      if (opts.browser && process.stdout.isTTY) await openBrowser(start.verification_url);

      const wait = spinner('Waiting for approval in the dashboard…');
      let interval = start.poll_interval;
      const deadline = Date.now() + start.expires_in * 1000;
      for (;;) {
        await sleep(interval * 1000);
        try {
          const token = await device.token({ device_code: start.device_code });
          wait.stop('Approved');
          const file = saveProfile(g.profile, {
            api_key: token.api_key,
            base_url: baseUrl,
            merchant_id: token.merchant_id,
            key_id: token.key_id,
          });
          process.stdout.write(`Stored the test key for profile '${g.profile}' in ${file}\n`);
          if (opts.envFile !== false) {
            const envFile = path.resolve(opts.envFile);
            // Loaded here only: it is the CLI's heaviest dependency and only login writes env files.
            const { default: dotenvx } = await import('@dotenvx/dotenvx');
            // Plain text, other lines kept; `quiet` (honoured, not in the typings) stops dotenvx's own log line.
            await dotenvx.set('SKIL_API_KEY', token.api_key, {
              path: envFile,
              encrypt: false,
              quiet: true,
            } as Parameters<typeof dotenvx.set>[2]);
            process.stdout.write(`Wrote SKIL_API_KEY to ${envFile}\n`);
          }
          return;
        } catch (err) {
          if (!(err instanceof SkilInvalidRequestError)) throw err;
          if (err.code === 'authorization_pending' && Date.now() < deadline) continue;
          if (err.code === 'slow_down') {
            interval = Number(err.headers?.get('retry-after')) || interval + 5;
            continue;
          }
          wait.stop();
          if (err.code === 'access_denied') throw new CliError('Login was denied in the dashboard.');
          if (err.code === 'expired_token' || err.code === 'authorization_pending') {
            throw new CliError('The code expired before it was approved. Run `skil login` again.');
          }
          throw err;
        }
      }
    });
}

async function openBrowser(url: string): Promise<void> {
  try {
    const { default: open } = await import('open');
    await open(url);
  } catch {
    // No browser here (a server, a container): the URL is printed above.
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
