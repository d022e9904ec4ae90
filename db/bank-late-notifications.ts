import type { Knex } from './knex';
import { NEW_EXCEPTION_ID_SQL } from './bank-exceptions';
import { count, SYSTEM_ACTOR, type FileRef } from './bank-matching-sql';

/**
 * A statement's lump sum whose notification came in a later file (decision 0092). When the camt.053
 * was matched its camt.054 had not arrived, so the lump sum was left with an open `unmatched`
 * exception. A notification file matches those statement entries now, as matchLumpSums would have:
 * an equal amount becomes a `claim_lump_sum` match, another amount an `amount_mismatch` exception
 * of the statement's file. Either way the `unmatched` exception is marked handled by "bank sync",
 * with an audit record, in the notification file's transaction.
 *
 * Only an exception that is still open counts: one an operator has resolved or handled keeps their
 * decision, and the entry is neither matched nor touched. Everything is guarded by the open
 * exception and by the unique constraints, so a retry or a repeat changes nothing twice.
 */
export async function matchLateNotifications(
  trx: Knex.Transaction,
  f: FileRef,
): Promise<{ matched: number; exceptions: number }> {
  // The statement entries waiting for one of this file's notification entries, and the notification
  // they get (an equal amount first, like matchLumpSums). Locked, so an operator closing the
  // exception at the same moment either goes first (the row drops out here) or waits for us.
  const found = await count(
    trx,
    `create temp table bank_sync_late_lump_sums on commit drop as
     select e.id as entry_id, e.bank_file_id, e.acct_svcr_ref as ref, e.amount, x.id as exception_id,
            n.amount as notified, null::text as outcome
       from bank_entries e
       join bank_statements s on s.id = e.bank_statement_id and s.message_type = 'camt.053'
       join bank_exceptions x on x.bank_file_id = e.bank_file_id and coalesce(x.bank_entry_id, 0) = e.id
                             and x.detail_index = 0 and x.kind = 'unmatched' and x.status = 'open'
       cross join lateral (
         select n.amount from bank_entries n
           join bank_statements ns on ns.id = n.bank_statement_id and ns.message_type = 'camt.054'
          where n.bank_file_id = ? and n.livemode = e.livemode and n.acct_svcr_ref = e.acct_svcr_ref
            and n.booked and not n.reversal and n.credit = e.credit
          order by (n.amount = e.amount) desc, n.id limit 1) n
      where e.livemode = ? and e.bank_file_id <> ? and e.booked and e.match_status = 'exception'
        -- From this file's notification statements, so a statement file (maybe a million entries) costs nothing.
        and e.acct_svcr_ref in (select n.acct_svcr_ref from bank_statements ns
                                  join bank_entries n on n.bank_statement_id = ns.id
                                 where ns.bank_file_id = ? and ns.message_type = 'camt.054' and ns.livemode = ?
                                   and n.booked and n.acct_svcr_ref like 'CLM-%')
        -- Only the plain "no notification yet" case: any other exception on the entry is left to operators.
        and not exists (select 1 from bank_exceptions o
                         where o.bank_file_id = e.bank_file_id and coalesce(o.bank_entry_id, 0) = e.id and o.id <> x.id)
        for update of e, x`,
    [f.fileId, f.livemode, f.fileId, f.fileId, f.livemode],
  );
  if (found === 0) return { matched: 0, exceptions: 0 };

  const matched = await count(
    trx,
    `with ins as (
       insert into bank_matches (livemode, bank_entry_id, detail_index, kind, object_id, amount)
       select ?, entry_id, 0, 'claim_lump_sum', ref, amount from bank_sync_late_lump_sums where notified = amount
       on conflict do nothing
       returning bank_entry_id),
     entry as (
       update bank_entries e set match_status = 'matched', matched_kind = 'claim_lump_sum'
         from ins where e.id = ins.bank_entry_id
       returning e.id)
     update bank_sync_late_lump_sums l set outcome = 'matched' from entry where l.entry_id = entry.id`,
    [f.livemode],
  );
  // Keyed by the statement entry's own file, like every exception of that entry (bank_exceptions_once).
  const exceptions = await count(
    trx,
    `with ins as (
       insert into bank_exceptions (id, livemode, bank_file_id, bank_entry_id, detail_index, kind, message,
                                    expected_amount, actual_amount)
       select ${NEW_EXCEPTION_ID_SQL}, ?, bank_file_id, entry_id, 0, 'amount_mismatch',
              'lump sum ' || ref || ' differs from its notification', notified, amount
         from bank_sync_late_lump_sums where notified <> amount
       on conflict do nothing
       returning bank_entry_id)
     update bank_sync_late_lump_sums l set outcome = 'amount_mismatch' from ins where l.entry_id = ins.bank_entry_id`,
    [f.livemode],
  );
  // The `unmatched` exception is answered (matched) or superseded by the amount_mismatch one.
  await count(
    trx,
    `with file as (select name from bank_files where id = ?),
     closed as (
       update bank_exceptions x
          set status = 'handled', resolved_by = ?, resolved_at = now(),
              resolution_note = case l.outcome
                when 'matched' then 'matched to its notification in ' || file.name
                else 'its notification in ' || file.name || ' has another amount: see the amount_mismatch exception'
              end
         from bank_sync_late_lump_sums l, file
        where x.id = l.exception_id and x.status = 'open' and l.outcome is not null
       returning x.id, x.livemode, x.kind, x.bank_file_id, x.bank_entry_id, x.resolution_note, l.outcome)
     insert into audit_log (livemode, actor_kind, actor_id, actor_name, action, object_type, object_id, data)
     select livemode, ?, ?, ?, 'bank_exception.handled', 'bank_exception', id,
            jsonb_build_object('kind', kind, 'bank_file', bank_file_id, 'bank_entry_id', bank_entry_id,
                               'note', resolution_note, 'outcome', outcome, 'notification_file', ?::text)
       from closed`,
    [f.fileId, SYSTEM_ACTOR.name, SYSTEM_ACTOR.kind, SYSTEM_ACTOR.id, SYSTEM_ACTOR.name, f.fileId],
  );
  return { matched, exceptions };
}
