import { z } from 'zod';
import type { Knex } from '../db/knex';
import { createMerchantRepository, type MerchantRow, type MerchantUpdate } from '../db/merchants';
import {
  APPLICATION_STATUSES,
  APPLICATION_TRANSITIONS,
  SUBMIT_REQUIRED,
  capabilities,
  enabledCapabilities,
  featuresOf,
  type ApplicationAction,
  type ApplicationStatus,
  type OnboardingState,
} from '../domain/capabilities';
import {
  IDENTITY_FIELDS,
  VERIFIED_FIELDS,
  profileWarnings,
  type ProfilePatch,
} from '../domain/merchant-profile';
import { ConflictError, NotFoundError, PermissionError, UnprocessableError } from '../domain/errors';
import { unix } from '../domain/unix-time';
import { claimTermsRuleOf } from '../domain/checkout-claims';

/**
 * The merchant account: profile updates, the application and the operator's onboarding steps.
 * Shared by the API (`/v1/merchant`, `/v1/operator`) and the dashboard, so both apply one set of rules.
 */

export type { MerchantRow } from '../db/merchants';

/** Who is changing the profile: a key of either kind, or a signed-in dashboard user. */
export type ProfileActor = 'test_key' | 'live_key' | 'dashboard';

const Capability = z.object({
  status: z.enum(['inactive', 'pending', 'active', 'rejected']),
  requirements: z.array(z.string()),
});

export const MerchantSchema = z.object({
  id: z.string(),
  object: z.literal('merchant'),
  livemode: z.boolean(),
  name: z.string(),
  merchant_type: z.enum(['company', 'individual']).nullable(),
  kennitala: z.string().nullable(),
  phone: z.string().nullable(),
  website: z.string().nullable(),
  business_description: z.string().nullable(),
  bank_account: z.string().nullable(),
  legal_address: z
    .object({ street: z.string(), city: z.string(), postalCode: z.string(), country: z.string() })
    .nullable(),
  application: z.object({
    status: z.enum(APPLICATION_STATUSES),
    submitted_at: z.number().nullable(),
    reviewed_at: z.number().nullable(),
    rejection_reason: z.string().nullable(),
  }),
  capabilities: z.object({ payments: Capability, claims: Capability, tap_to_pay: Capability }),
  enabled_capabilities: z.array(z.string()),
  features: z.object({ pos: z.boolean() }),
  claim_terms: z.object({
    days_until_due: z.number().int(),
    days_until_final_due: z.number().int(),
    days_until_cancellation: z.number().int(),
  }),
  warnings: z.array(z.object({ code: z.string(), param: z.string(), message: z.string() })),
  created_at: z.number(),
  updated_at: z.number(),
});

export type MerchantObject = z.output<typeof MerchantSchema>;

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

export function missingForSubmit(row: MerchantRow): string[] {
  return SUBMIT_REQUIRED.filter((field) => row[field] === null || row[field] === '');
}

export function onboardingState(row: MerchantRow): OnboardingState {
  return {
    applicationStatus: row.application_status,
    missing: missingForSubmit(row),
    cardAcquirerActive: row.card_acquirer_activated_at !== null,
    claimsAgreementSigned: row.claims_agreement_signed_at !== null,
    features: featuresOf(row.features),
  };
}

/** The merchant as the API shows it to a key of this mode (spec §2.3). */
export function presentMerchant(row: MerchantRow, livemode: boolean): MerchantObject {
  const state = onboardingState(row);
  return {
    id: row.id,
    object: 'merchant',
    livemode,
    name: row.name,
    merchant_type: row.merchant_type,
    kennitala: row.kennitala,
    phone: row.phone,
    website: row.website,
    business_description: row.business_description,
    bank_account: row.bank_account,
    legal_address: row.legal_address,
    application: {
      status: row.application_status,
      submitted_at: unix(row.application_submitted_at),
      reviewed_at: unix(row.application_reviewed_at),
      rejection_reason: row.application_rejection_reason,
    },
    capabilities: capabilities(state),
    enabled_capabilities: enabledCapabilities(state, livemode),
    features: state.features,
    claim_terms: claimTermsRuleOf(row.claim_terms),
    warnings: profileWarnings(row),
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}

export function createMerchantAccountService(knex: Knex) {
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
      return withLocked(id, async (row, trx) => {
        if (patch.claim_terms !== undefined)
          patch = { ...patch, claim_terms: { ...row.claim_terms, ...patch.claim_terms } };
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
        const values: MerchantUpdate = {};
        for (const key of changed) (values as Record<string, unknown>)[key] = patch[key];
        return (await merchants.update(id, values, trx))!;
      });
    },

    /** Sends the application to review; 422 naming every required field that is unset. */
    async submit(id: string): Promise<MerchantRow> {
      return withLocked(id, async (row, trx) => {
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
