import type { Knex } from '../../db/knex';
import { createFinanceBankRepository } from '../../db/finance-bank';
import { createFinanceAuditRepository } from '../../db/finance-audit';

export type { BankFileRow, EntryRow, ExceptionRow } from '../../db/finance-bank';
export type { AuditListRow } from '../../db/finance-audit';

/**
 * What the finance pages read about the bank side: files received, a file's parsed entries, the
 * exceptions queue and the audit log. Read-only; the exception actions are the bank-exception
 * service's.
 */
export function createFinanceBankService(deps: { knex: Knex }) {
  const bank = createFinanceBankRepository(deps.knex);
  const audit = createFinanceAuditRepository(deps.knex);

  return {
    files: (livemode: boolean, limit: number) => bank.listBankFiles(livemode, limit),

    /** A file and a page of its entries after entry `after`; files can hold a million entries. */
    async file(livemode: boolean, id: string, opts: { after?: number | undefined; entriesPerPage: number }) {
      const file = await bank.findBankFile(livemode, id);
      if (!file) return undefined;
      const entries = await bank.fileEntries(livemode, file.id, {
        after: opts.after,
        limit: opts.entriesPerPage,
      });
      return { file, entries };
    },

    /** Open exceptions, and the newest resolved and handled ones; newest first. */
    async exceptionQueue(livemode: boolean, opts: { open: number; closed: number }) {
      const [open, closed] = await Promise.all([
        bank.listExceptions(livemode, { open: true, limit: opts.open }),
        bank.listExceptions(livemode, { open: false, limit: opts.closed }),
      ]);
      return { open, closed };
    },

    /** The newest audit records of an environment, and those that belong to none. */
    audit: (livemode: boolean, limit: number) => audit.recentAudit(livemode, limit),
  };
}

export type FinanceBankService = ReturnType<typeof createFinanceBankService>;
