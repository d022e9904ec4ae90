import type { Knex } from 'knex';

/**
 * Raw bank files in PostgreSQL (decision 0145): every worker reads the bytes another downloaded.
 * Stored uncompressed (`external`): bank files are parsed once soon after arrival, and compressing
 * a file of a million payments costs more CPU than the disk it saves is worth here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table raw_bank_files (
      sha256 text primary key check (sha256 ~ '^[0-9a-f]{64}$'),
      size bigint not null check (size >= 0),
      chunk_count integer not null check (chunk_count >= 0),
      stored_at timestamptz not null default now()
    );
    create table raw_bank_file_chunks (
      sha256 text not null,
      seq integer not null check (seq >= 0),
      bytes bytea not null,
      primary key (sha256, seq)
    );
    alter table raw_bank_file_chunks set (toast_tuple_target = 8160);
    alter table raw_bank_file_chunks alter column bytes set storage external;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table raw_bank_file_chunks; drop table raw_bank_files;`);
}
