import { z } from 'zod';
import { checkKennitala } from './kennitala';
import { ClaimTermsPatch } from './checkout-claims';
import { McpSettingsPatch } from './mcp-settings';
import { MerchantDunningPatch } from './claim-fallback';
import { VAT_PERIOD_KINDS } from './vat-period';

/**
 * The writable merchant profile (spec §2.3, limits §8). One schema validates the API's PATCH and
 * the dashboard's profile form. null (or, for the free-text fields, an empty string) clears a field.
 */

export const MERCHANT_TYPES = ['company', 'individual'] as const;
export type MerchantType = (typeof MERCHANT_TYPES)[number];

export interface LegalAddress {
  street: string;
  city: string;
  postalCode: string;
  country: string;
}

/** Control characters have no place in one-line fields shown to people and to acquirers. */
const NO_CONTROL = /^[^\p{Cc}]*$/u;
const line = (max: number) =>
  z.string().max(max).regex(NO_CONTROL, 'must not contain control characters (such as line breaks)');

/** Exactly 10 digits, a real date part (day + 40 for companies) and a known century digit. */
export const zKennitala = z
  .string()
  .regex(/^\d{10}$/, 'must be exactly 10 digits')
  .superRefine((value, ctx) => {
    const check = checkKennitala(value);
    if (!check.ok) ctx.addIssue({ code: 'custom', message: check.reason });
  });

/** An Icelandic account: bank/branch (4), ledger (2), account (6), with or without dashes. */
export const zBankAccount = z
  .string()
  .max(14)
  .regex(
    /^(\d{4}-\d{2}-\d{6}|\d{12})$/,
    'must be an Icelandic account number: 4-2-6 digits (bank, ledger, account), with or without dashes',
  )
  .transform(formatBankAccount);

/** `0133-26-012345`, the written form, whatever form it arrived in. */
export function formatBankAccount(input: string): string {
  const digits = input.replace(/-/g, '');
  return `${digits.slice(0, 4)}-${digits.slice(4, 6)}-${digits.slice(6)}`;
}

const addressPart = (max: number) => line(max).min(1);

export const zLegalAddress = z
  .object({
    street: addressPart(200),
    city: addressPart(100),
    postalCode: addressPart(20),
    country: addressPart(100),
  })
  .strict();

/** Free text that may be cleared: an empty string means "unset", as form posts cannot send null. */
const clearable = <T extends z.ZodType<string | null>>(schema: T) =>
  schema.nullable().transform((v) => (v === '' ? null : v));

export const ProfilePatch = z
  .object({
    name: line(255).min(1),
    merchant_type: z.enum(MERCHANT_TYPES),
    kennitala: zKennitala.nullable(),
    phone: clearable(line(50)),
    website: clearable(line(255)),
    business_description: clearable(z.string().max(2000)),
    bank_account: zBankAccount.nullable(),
    legal_address: zLegalAddress.nullable(),
    /** VSK-númer, printed on invoices; null: not registered for VAT (decision 0138). */
    vat_number: z
      .string()
      .regex(/^\d{5,6}$/, 'must be an Icelandic VAT number (VSK-númer): 5 or 6 digits')
      .nullable(),
    /** VAT of amount-only charges; null: 24 with a VAT number, 0 without one (decision 0138). */
    default_vat_rate: z.union([z.literal(0), z.literal(11), z.literal(24)]).nullable(),
    /** Email the buyer a receipt with the invoice after each payment (decision 0141). */
    receipt_emails: z.boolean(),
    /** How often the VAT return is filed: every two months or, for small filers, yearly (0238). */
    vat_period: z.enum(VAT_PERIOD_KINDS),
    /** Merged into the current rule: only the fields sent change (decision 0065). */
    claim_terms: ClaimTermsPatch,
    /** Agent safety of the MCP server, merged like claim_terms (decision 0121). */
    mcp: McpSettingsPatch,
    /** Defaults of the merchant's subscriptions after failed renewals, merged like claim_terms (0105). */
    dunning: MerchantDunningPatch,
  })
  .partial()
  .strict();

export type ProfilePatch = z.output<typeof ProfilePatch>;

/**
 * Fields that say who the merchant is and where its money goes. They are frozen while the
 * application is reviewed; after approval see `docs/decisions/0012-profile-changes-after-submission.md`.
 */
export const VERIFIED_FIELDS = ['merchant_type', 'kennitala', 'bank_account', 'legal_address'] as const;
/** A different legal entity is a new account: these never change after approval. */
export const IDENTITY_FIELDS = ['merchant_type', 'kennitala'] as const;

export interface ProfileWarning {
  code: 'kennitala_check_digit' | 'kennitala_type_mismatch';
  param: string;
  message: string;
}

/** What deserves a warning but not a rejection (CLAIMS-DOMAIN.md §2.1: the registry is the authority). */
export function profileWarnings(profile: {
  kennitala: string | null;
  merchant_type: MerchantType | null;
}): ProfileWarning[] {
  if (profile.kennitala === null) return [];
  const check = checkKennitala(profile.kennitala);
  if (!check.ok) return [];
  const warnings: ProfileWarning[] = [];
  if (!check.kennitala.checksumValid) {
    warnings.push({
      code: 'kennitala_check_digit',
      param: 'kennitala',
      message:
        'The kennitala fails the mod-11 check digit. Ids issued since 18 February 2026 may have none, so it is accepted; check it against the registry.',
    });
  }
  const expected = check.kennitala.kind === 'company' ? 'company' : 'individual';
  if (profile.merchant_type !== null && profile.merchant_type !== expected) {
    warnings.push({
      code: 'kennitala_type_mismatch',
      param: 'kennitala',
      message: `The kennitala is that of ${check.kennitala.kind === 'company' ? 'a company' : 'a person'}, but merchant_type is ${profile.merchant_type}.`,
    });
  }
  return warnings;
}
