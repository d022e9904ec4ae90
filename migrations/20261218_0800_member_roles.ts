import type { Knex } from 'knex';

/**
 * Team roles of merchant users (domain/member-roles.ts): every existing merchant user owned its
 * account alone, so each becomes its owner; operators have no merchant role.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table users add column role text;
    update users set role = 'owner' where kind = 'merchant';
    alter table users add constraint users_role_by_kind check (
      (kind = 'merchant' and role in ('owner', 'developer', 'finance', 'read_only'))
      or (kind = 'operator' and role is null)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table users drop constraint users_role_by_kind; alter table users drop column role;`);
}
