import { z } from 'zod';
import type { MerchantRow } from '../../db/merchants';
import { APPLICATION_STATUSES, capabilities, enabledCapabilities } from '../../domain/capabilities';
import { profileWarnings } from '../../domain/merchant-profile';
import { unix } from '../../domain/unix-time';
import { claimTermsRuleOf } from '../../domain/checkout-claims';
import { mcpSettingsOf } from '../../domain/mcp-settings';
import { merchantDunningOf } from '../../domain/claim-fallback';
import { onboardingState } from './onboarding';
import { VAT_PERIOD_KINDS } from '../../domain/vat-period';

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
  vat_number: z.string().nullable().describe('VSK-númer printed on invoices; null: not registered for VAT'),
  default_vat_rate: z
    .union([z.literal(0), z.literal(11), z.literal(24)])
    .describe('VAT rate of amount-only charges (no product); 0 for a merchant not registered for VAT'),
  receipt_emails: z.boolean().describe('Email the buyer a receipt with the invoice PDF after each payment'),
  vat_period: z
    .enum(VAT_PERIOD_KINDS)
    .describe('How often the VAT return is filed: two_month (the general periods) or yearly (small filers)'),
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
  mcp: z
    .object({
      confirm_test_refunds: z
        .boolean()
        .describe('Refunds through the MCP tools with a test key need confirmation too (live: always)'),
      daily_refund_count: z.number().int().describe('Refunds per API key per day through the MCP tools'),
      daily_refund_amount: z.number().int().describe('ISK per API key per day through the MCP tools'),
    })
    .describe('Agent safety of the MCP server at /mcp (decision 0121)'),
  dunning: z
    .object({
      claim_fallback: z
        .boolean()
        .describe(
          "When a subscription's card retries run out, issue a krafa for the renewal before its end state",
        ),
    })
    .describe("Defaults for subscriptions' dunning; a subscription's own setting wins"),
  warnings: z.array(z.object({ code: z.string(), param: z.string(), message: z.string() })),
  created_at: z.number(),
  updated_at: z.number(),
});

export type MerchantObject = z.output<typeof MerchantSchema>;

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
    vat_number: row.vat_number,
    default_vat_rate: row.default_vat_rate ?? (row.vat_number === null ? 0 : 24),
    receipt_emails: row.receipt_emails,
    vat_period: row.vat_period,
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
    mcp: mcpSettingsOf(row.mcp),
    dunning: merchantDunningOf(row.dunning),
    warnings: profileWarnings(row),
    created_at: unix(row.created_at),
    updated_at: unix(row.updated_at),
  };
}
