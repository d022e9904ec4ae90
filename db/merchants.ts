import type { Db } from './knex';
import type { ApplicationStatus } from '../domain/capabilities';
import type { LegalAddress, MerchantType } from '../domain/merchant-profile';
import { newId, ID_PREFIX } from '../domain/ids';
import type { VatRate } from '../domain/vat';
import type { VatPeriodKind } from '../domain/vat-period';

export interface MerchantRow {
  id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
  merchant_type: MerchantType | null;
  kennitala: string | null;
  phone: string | null;
  website: string | null;
  business_description: string | null;
  bank_account: string | null;
  legal_address: LegalAddress | null;
  vat_number: string | null;
  /** As set; null means the default of decision 0138 (see defaultVatRateOf). */
  default_vat_rate: VatRate | null;
  receipt_emails: boolean;
  /** How often the merchant files its VAT return (decision 0238). */
  vat_period: VatPeriodKind;
  application_status: ApplicationStatus;
  application_submitted_at: Date | null;
  application_reviewed_at: Date | null;
  application_reviewed_by: string | null;
  application_rejection_reason: string | null;
  card_acquirer_activated_at: Date | null;
  claims_agreement_signed_at: Date | null;
  features: Record<string, unknown>;
  /** The merchant's claim terms rule as set (partial; defaults fill the rest, claimTermsRuleOf). */
  claim_terms: Record<string, unknown>;
  /** The merchant's MCP settings as set (partial; mcpSettingsOf fills the rest, decision 0121). */
  mcp: Record<string, unknown>;
  /** The merchant's dunning defaults as set (partial; merchantDunningOf fills the rest, decision 0105). */
  dunning: Record<string, unknown>;
  /** Pickup-point carriers switched on, per environment (decision 0132). */
  delivery_carriers: { test?: string[]; live?: string[] };
}

/** Columns a profile update or an onboarding step may set. */
export type MerchantUpdate = Partial<Omit<MerchantRow, 'id' | 'created_at' | 'updated_at'>>;

/** Merchants are the tenants themselves, so this repository is the one keyed by id alone. */
export function createMerchantRepository(db: Db) {
  return {
    async create(input: { name: string }, trx: Db = db): Promise<MerchantRow> {
      const [row] = await trx<MerchantRow>('merchants')
        .insert({ id: newId(ID_PREFIX.merchant), name: input.name })
        .returning('*');
      return row!;
    },

    async findById(id: string, trx: Db = db): Promise<MerchantRow | undefined> {
      return trx<MerchantRow>('merchants').where({ id }).first();
    },

    /** The row, locked until the transaction ends: onboarding steps read, check, then write. */
    async findForUpdate(id: string, trx: Db): Promise<MerchantRow | undefined> {
      return trx<MerchantRow>('merchants').where({ id }).forUpdate().first();
    },

    async update(id: string, values: MerchantUpdate, trx: Db = db): Promise<MerchantRow | undefined> {
      const { legal_address, features, claim_terms, mcp, dunning, delivery_carriers, ...rest } = values;
      const [row] = await trx<MerchantRow>('merchants')
        .where({ id })
        .update({
          ...rest,
          // jsonb: pass JSON text, so knex does not read an object as a column list.
          ...(legal_address !== undefined && {
            legal_address: legal_address === null ? null : (JSON.stringify(legal_address) as never),
          }),
          ...(features !== undefined && { features: JSON.stringify(features) as never }),
          ...(claim_terms !== undefined && { claim_terms: JSON.stringify(claim_terms) as never }),
          ...(mcp !== undefined && { mcp: JSON.stringify(mcp) as never }),
          ...(dunning !== undefined && { dunning: JSON.stringify(dunning) as never }),
          ...(delivery_carriers !== undefined && {
            delivery_carriers: JSON.stringify(delivery_carriers) as never,
          }),
          updated_at: trx.fn.now() as never,
        })
        .returning('*');
      return row;
    },

    /** Merchants by application status, oldest submission first (the review queue), paged by id. */
    async listByApplication(
      opts: { status?: ApplicationStatus; limit: number; startingAfter?: string },
      trx: Db = db,
    ): Promise<{ data: MerchantRow[]; hasMore: boolean }> {
      const query = trx<MerchantRow>('merchants');
      if (opts.status) query.where({ application_status: opts.status });
      if (opts.startingAfter) {
        query.whereRaw(
          `(coalesce(application_submitted_at, created_at), id) > (select coalesce(application_submitted_at, created_at), id from merchants where id = ?)`,
          [opts.startingAfter],
        );
      }
      const rows = await query
        .orderByRaw('coalesce(application_submitted_at, created_at), id')
        .limit(opts.limit + 1);
      return { data: rows.slice(0, opts.limit), hasMore: rows.length > opts.limit };
    },
  };
}

export type MerchantRepository = ReturnType<typeof createMerchantRepository>;
