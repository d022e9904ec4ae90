import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { Knex } from './knex';
import type { RawFileStore } from '../adapters/object-store/raw-file-store';

/** Rows of at most this many bytes: big files stream in and out without holding them whole. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The raw bank file store in PostgreSQL (the default): a head row per file and its bytes in 1 MiB
 * chunks, written in one transaction, so a file is either there whole or not at all. Every worker
 * reaches it through the database it already uses. Bank files belong to the service's bank
 * connection, not to a merchant, so this table has no tenant scope (the `bank_files` row that
 * names the file carries the connection and mode).
 */
export function createPostgresRawFileStore(knex: Knex): RawFileStore {
  return {
    async put(sha256, fromPath) {
      await knex.transaction(async (trx) => {
        // Two workers storing the same bytes: the second waits here for the first, then finds it.
        await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`raw_bank_file:${sha256}`]);
        if (await trx('raw_bank_files').where({ sha256 }).first('sha256')) return;
        let seq = 0;
        let size = 0;
        for await (const chunk of createReadStream(fromPath, { highWaterMark: CHUNK_BYTES })) {
          const bytes = chunk as Buffer;
          await trx('raw_bank_file_chunks').insert({ sha256, seq: seq++, bytes });
          size += bytes.length;
        }
        await trx('raw_bank_files').insert({ sha256, size, chunk_count: seq });
      });
    },

    open(sha256) {
      async function* chunks() {
        const head = await knex<{ sha256: string; chunk_count: number }>('raw_bank_files')
          .where({ sha256 })
          .first('chunk_count');
        if (!head) throw new Error(`raw bank file ${sha256} is not in the store`);
        for (let seq = 0; seq < head.chunk_count; seq++) {
          const row = await knex<{ sha256: string; seq: number; bytes: Buffer }>('raw_bank_file_chunks')
            .where({ sha256, seq })
            .first('bytes');
          if (!row) throw new Error(`raw bank file ${sha256} lacks chunk ${seq}`);
          yield row.bytes;
        }
      }
      return Readable.from(chunks(), { objectMode: false });
    },
  };
}
