import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** One stored login: a test key from the device flow, and where it was issued. */
export interface Profile {
  api_key: string;
  base_url: string;
  merchant_id?: string;
  key_id?: string;
}

interface ConfigFile {
  profiles: Record<string, Profile>;
}

/** `$XDG_CONFIG_HOME/skil` (default `~/.config/skil`; `%APPDATA%\skil` on Windows). */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SKIL_CONFIG_DIR) return env.SKIL_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return path.join(env.APPDATA, 'skil');
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'skil');
}

function configPath(): string {
  return path.join(configDir(), 'config.json');
}

export function readConfig(): ConfigFile {
  try {
    const parsed = JSON.parse(readFileSync(configPath(), 'utf8')) as Partial<ConfigFile>;
    return { profiles: parsed.profiles ?? {} };
  } catch {
    return { profiles: {} };
  }
}

export function saveProfile(name: string, profile: Profile): string {
  const config = readConfig();
  config.profiles[name] = profile;
  writeFileAtomic(configPath(), JSON.stringify(config, null, 2) + '\n');
  return configPath();
}

/**
 * Where `skil listen` keeps its place: one file per profile and API address, holding the id of the
 * last event the local server answered, so a restart resumes after it.
 */
export function cursorPath(profile: string, baseUrl: string): string {
  const site = createHash('sha256').update(baseUrl).digest('hex').slice(0, 12);
  return path.join(configDir(), 'listen', `${profile}-${site}.json`);
}

export function readCursor(file: string): string | null {
  try {
    const { last_event_id } = JSON.parse(readFileSync(file, 'utf8')) as { last_event_id?: string };
    return typeof last_event_id === 'string' ? last_event_id : null;
  } catch {
    return null;
  }
}

export function writeCursor(file: string, eventId: string): void {
  writeFileAtomic(file, JSON.stringify({ last_event_id: eventId }) + '\n');
}

/** Write then rename, so a kill mid-write leaves the old file whole, never a torn one. Owner-only: it may hold a key. */
function writeFileAtomic(file: string, content: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  renameSync(tmp, file);
}
