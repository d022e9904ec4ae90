import { createSecretBox, type SecretBox } from '../domain/secret-box';

// Migrations receive only knex; the one that encrypts stored secrets also needs the key from
// configuration. The runner (db/migrate.ts) hands it over here for the length of a run.
let current: SecretBox | null = null;

/** Runs `run` with the secrets key available to migrations (none when `keyText` is undefined). */
export async function withMigrationSecrets<T>(
  keyText: string | undefined,
  run: () => Promise<T>,
): Promise<T> {
  current = keyText === undefined ? null : createSecretBox(keyText);
  try {
    return await run();
  } finally {
    current = null;
  }
}

/** The secrets key of this migration run; throws, saying what to set, when there is none. */
export function migrationSecrets(why: string): SecretBox {
  if (!current) {
    throw new Error(
      `${why}: set SECRETS_ENCRYPTION_KEY (npm start generates one in DATA_DIR/secrets.key) and migrate again`,
    );
  }
  return current;
}
