import type { Knex } from '../../db/knex';
import { createMerchantRepository, type MerchantRow, type MerchantUpdate } from '../../db/merchants';
import {
  APPLICATION_TRANSITIONS,
  featuresOf,
  type ApplicationAction,
  type ApplicationStatus,
} from '../../domain/capabilities';
import { IDENTITY_FIELDS, VERIFIED_FIELDS, type ProfilePatch } from '../../domain/merchant-profile';
import { ConflictError, NotFoundError, PermissionError, UnprocessableError } from '../../domain/errors';
import { missingForSubmit } from './onboarding';
import { createUserRepository } from '../../db/users';
import type { PayoutAccountGuard } from './payout-account-guard';

/**
 * The merchant account: profile updates, the application and the operator's onboarding steps.
 * Shared by the API (`/v1/merchant`, `/v1/operator`) and the dashboard, so both apply one set of rules.
 */

// The presenter and onboarding state are exported here too, as the pages import them from here.
export { MerchantSchema, presentMerchant, type MerchantObject } from './merchant-object';
export { missingForSubmit, onboardingState } from './onboarding';
export type { MerchantRow } from '../../db/merchants';

/** Who is changing the profile: a key of either kind, or a signed-in dashboard user. */
export type ProfileActor = 'test_key' | 'live_key' | 'dashboard';

/** Equality of profile values; object keys in any order (jsonb reorders them). */
function sameValue(a: unknown, b: unknown): boolean {
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return (
      ka.length === kb.length &&
      ka.every(
        (k, i) =>
          k === kb[i] && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
      )
    );
  }
  return a === b;
}

export function createMerchantAccountService(
  knex: Knex,
  opts: { payoutGuard?: PayoutAccountGuard | undefined } = {},
) {
  const merchants = createMerchantRepository(knex);

  async function load(id: string): Promise<MerchantRow> {
    const row = await merchants.findById(id);
    if (!row) throw new NotFoundError(`No such merchant: '${id}'`, 'id');
    return row;
  }

  /** Runs `change` on the locked row; the row must exist. */
  async function withLocked<T>(id: string, change: (row: MerchantRow, trx: Knex.Transaction) => Promise<T>) {
    return knex.transaction(async (trx) => {
      const row = await merchants.findForUpdate(id, trx);
      if (!row) throw new NotFoundError(`No such merchant: '${id}'`, 'id');
      return change(row, trx);
    });
  }

  function assertTransition(row: MerchantRow, action: ApplicationAction): void {
    const { from } = APPLICATION_TRANSITIONS[action];
    if (from.includes(row.application_status)) return;
    const codes: Record<ApplicationAction, string> = {
      submit:
        row.application_status === 'approved'
          ? 'application_already_approved'
          : 'application_already_submitted',
      approve: 'application_not_in_review',
      reject: 'application_not_in_review',
    };
    throw new ConflictError(
      `Cannot ${action} an application that is ${row.application_status.replace('_', ' ')}`,
      codes[action],
    );
  }

  return {
    load,

    /** The merchants of one application status, oldest submission first: the operator's queue. */
    async listApplications(opts: { status: ApplicationStatus; limit: number }): Promise<MerchantRow[]> {
      return (await merchants.listByApplication(opts)).data;
    },

    /**
     * Applies a profile patch. Verified fields are frozen while the application is reviewed;
     * after approval the identity fields never change and the money fields need a live key or the
     * dashboard (docs/decisions/0012-profile-changes-after-submission.md).
     */
    async updateProfile(id: string, patch: ProfilePatch, actor: ProfileActor): Promise<MerchantRow> {
      let tellOwners: (() => Promise<void>) | undefined;
      const updated = await withLocked(id, async (row, trx) => {
        if (patch.claim_terms !== undefined)
          patch = { ...patch, claim_terms: { ...row.claim_terms, ...patch.claim_terms } };
        if (patch.mcp !== undefined) patch = { ...patch, mcp: { ...row.mcp, ...patch.mcp } };
        if (patch.dunning !== undefined) patch = { ...patch, dunning: { ...row.dunning, ...patch.dunning } };
        const changed = (Object.keys(patch) as (keyof ProfilePatch)[]).filter(
          (k) => !sameValue(patch[k], row[k]),
        );
        const verified = changed.filter((k) => (VERIFIED_FIELDS as readonly string[]).includes(k));
        if (verified.length > 0 && row.application_status === 'in_review') {
          throw new ConflictError(
            `${verified[0]} cannot change while the application is in review`,
            'application_in_review',
            verified[0],
          );
        }
        if (row.application_status === 'approved') {
          const identity = verified.find((k) => (IDENTITY_FIELDS as readonly string[]).includes(k));
          if (identity) {
            throw new ConflictError(
              `${identity} cannot change after approval: a different legal entity needs its own account`,
              'profile_field_locked',
              identity,
            );
          }
          if (verified.length > 0 && actor === 'test_key') {
            throw new PermissionError(
              `${verified[0]} of an approved merchant can only be changed with a live key or in the dashboard`,
              'live_key_required',
            );
          }
        }
        if (changed.length === 0) return row;
        // A new payout account is recorded with the change and its owners told after the commit
        // (decision 0228).
        if (changed.includes('bank_account') && patch.bank_account && opts.payoutGuard)
          tellOwners = await opts.payoutGuard.changed(trx, {
            merchantId: id,
            previous: row.bank_account,
            next: patch.bank_account,
            actor,
          });
        const values: MerchantUpdate = {};
        for (const key of changed) (values as Record<string, unknown>)[key] = patch[key];
        return (await merchants.update(id, values, trx))!;
      });
      await tellOwners?.();
      return updated;
    },

    /** Sends the application to review; 422 naming every required field that is unset. */
    async submit(id: string): Promise<MerchantRow> {
      return withLocked(id, async (row, trx) => {
        // A self-serve account applies for live money once its owner's address is proven (decision 0115).
        if (await createUserRepository(trx).awaitsEmailVerification(id))
          throw new PermissionError(
            'Verify the account’s email address before applying for live payments: follow the link we emailed, or send a new one from the dashboard',
            'email_not_verified',
          );
        assertTransition(row, 'submit');
        const missing = missingForSubmit(row);
        if (missing.length > 0) {
          throw new UnprocessableError(
            `The application cannot be submitted until these are set: ${missing.join(', ')}`,
            'application_incomplete',
            missing,
          );
        }
        return (await merchants.update(
          id,
          {
            application_status: 'in_review',
            application_submitted_at: new Date(),
            application_reviewed_at: null,
            application_reviewed_by: null,
            application_rejection_reason: null,
          },
          trx,
        ))!;
      });
    },

    async approve(id: string, operatorId: string): Promise<MerchantRow> {
      return withLocked(id, async (row, trx) => {
        assertTransition(row, 'approve');
        return (await merchants.update(
          id,
          {
            application_status: 'approved',
            application_reviewed_at: new Date(),
            application_reviewed_by: operatorId,
          },
          trx,
        ))!;
      });
    },

    async reject(id: string, operatorId: string, reason: string): Promise<MerchantRow> {
      return withLocked(id, async (row, trx) => {
        assertTransition(row, 'reject');
        return (await merchants.update(
          id,
          {
            application_status: 'rejected',
            application_reviewed_at: new Date(),
            application_reviewed_by: operatorId,
            application_rejection_reason: reason,
          },
          trx,
        ))!;
      });
    },

    /** The card acquirer approved the merchant; only after our own approval. Repeating it is a no-op. */
    async activateCardAcquirer(id: string): Promise<MerchantRow> {
      return withLocked(id, async (row, trx) => {
        if (row.application_status !== 'approved') {
          throw new ConflictError(
            'The card acquirer can be activated only for an approved application',
            'application_not_approved',
          );
        }
        if (row.card_acquirer_activated_at) return row;
        return (await merchants.update(id, { card_acquirer_activated_at: new Date() }, trx))!;
      });
    },

    /**
     * The merchant signed the claims agreement (in the application, so possibly before approval).
     * Bank claims open once both hold. Repeating it is a no-op.
     */
    async signClaimsAgreement(id: string): Promise<MerchantRow> {
      return withLocked(id, async (row, trx) => {
        if (row.claims_agreement_signed_at) return row;
        return (await merchants.update(id, { claims_agreement_signed_at: new Date() }, trx))!;
      });
    },

    async setFeatures(id: string, features: { pos?: boolean }): Promise<MerchantRow> {
      return withLocked(id, async (row, trx) => {
        const next = { ...featuresOf(row.features), ...features };
        return (await merchants.update(id, { features: { ...row.features, ...next } }, trx))!;
      });
    },
  };
}

export type MerchantAccountService = ReturnType<typeof createMerchantAccountService>;
