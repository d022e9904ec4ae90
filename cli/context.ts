import { Skil } from '@skil/sdk';
import { readConfig } from './config';

export interface GlobalOptions {
  profile: string;
  baseUrl?: string;
  json?: boolean;
}

export const DEFAULT_BASE_URL = 'http://localhost:3000';

/** A usage problem the user can fix (no key, a bad flag): printed without a stack, exit code 1. */
export class CliError extends Error {}

/** The API address: `--base-url`, then `SKIL_BASE_URL`, then the profile's, then what `npm start` serves. */
export function baseUrlOf(opts: GlobalOptions): string {
  return (
    opts.baseUrl ??
    process.env.SKIL_BASE_URL ??
    readConfig().profiles[opts.profile]?.base_url ??
    DEFAULT_BASE_URL
  ).replace(/\/+$/, '');
}

/** The key: `SKIL_API_KEY` from the environment overrides the profile's stored one. */
export function clientOf(opts: GlobalOptions): Skil {
  const key = process.env.SKIL_API_KEY || readConfig().profiles[opts.profile]?.api_key;
  if (!key) {
    throw new CliError(`No API key for profile '${opts.profile}'. Run \`skil login\` or set SKIL_API_KEY.`);
  }
  return new Skil(key, { baseUrl: baseUrlOf(opts) });
}
