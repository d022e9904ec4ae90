import type { Knex } from 'knex';
import * as foundation from './20261121_0001_foundation';
import * as merchantAccounts from './20261121_0100_merchant_accounts';
import * as catalog from './20261121_0200_catalog';
import * as checkout from './20261121_0300_checkout';
import * as subscriptions from './20261121_0400_subscriptions';
import * as subscriptionCheckout from './20261121_0500_subscription_checkout';
import * as claims from './20261121_0600_claims';
import * as claimsCheckout from './20261121_0610_claims_checkout';
import * as settlement from './20261121_0700_settlement';
import * as merchantClaimTerms from './20261121_0800_merchant_claim_terms';
import * as settlementIndexes from './20261121_0900_settlement_indexes';
import * as eventsVisibility from './20261121_1510_events_visibility';
import * as settlementPaymentCosts from './20261125_1510_settlement_payment_costs';
import * as webhookSecretsAtRest from './20261216_1101_webhook_secrets_at_rest';
import * as webhookSecretRotation from './20261216_1102_webhook_secret_rotation';
import * as channelAutoDisable from './20261216_1103_channel_auto_disable';
import * as rateLimits from './20261216_1104_rate_limits';
import * as subscriptionClaimFallback from './20261216_1200_subscription_claim_fallback';
import * as mcpAgentSafety from './20261217_0900_mcp_agent_safety';
import * as claimRefundTransfers from './20261217_1000_claim_refund_transfers';
import * as memberRoles from './20261218_0800_member_roles';
import * as accountEmail from './20261218_0900_account_email';
import * as eventObjects from './20261218_1000_event_objects';
import * as pointOfSale from './20261219_0900_point_of_sale';
import * as delivery from './20261220_0100_delivery';
import * as invoices from './20261221_0100_invoices';
import * as rawBankFiles from './20261222_0900_raw_bank_files';
import * as posPinSessions from './20261223_0100_pos_pin_sessions';
import * as disputes from './20261224_0100_disputes';
import * as eventObjectColumns from './20261226_0100_event_object_columns';
import * as apiKeyChangeNotices from './20261227_0100_api_key_change_notices';
import * as billingLaneStatistics from './20261228_0100_billing_lane_statistics';
import * as renewalHotUpdates from './20261229_0100_renewal_hot_updates';
import * as compositeTenantKeys from './20261230_0100_composite_tenant_keys';
import * as sessionIntentOncePaid from './20261231_0100_session_intent_once_paid';
import * as mcpConfirmationObjects from './20261231_0200_mcp_confirmation_objects';
import * as userLocale from './20261231_0300_user_locale';
import * as einvoiceBuyers from './20270101_0100_einvoice_buyers';
import * as krafaInvoices from './20270101_0110_krafa_invoices';
import * as checkoutBusinessBuyer from './20270101_0120_checkout_business_buyer';
import * as vatCategory from './20270102_0100_vat_category';
import * as posSaleInvoices from './20270102_0110_pos_sale_invoices';
import * as creditNoteDelivery from './20270102_0120_credit_note_delivery';
import * as invoiceDelivery from './20270101_0201_invoice_delivery';
import * as apiKeySightings from './20270101_0400_api_key_sightings';
import * as merchantAuditLog from './20270101_0410_merchant_audit_log';
import * as payoutAccountChanges from './20270101_0420_payout_account_changes';
import * as vatPeriod from './20270102_0201_vat_period';
import * as booksJournal from './20270102_0210_books_journal';
import * as secondFactor from './20270101_0300_second_factor';
import * as collection from './20270102_0300_collection';
import * as passkeys from './20270101_0301_passkeys';

export interface Migration {
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
}

/** Every migration, in order. Forward-only in production; `down` exists for development. */
export const migrations: Record<string, Migration> = {
  '20261121_0001_foundation': foundation,
  '20261121_0100_merchant_accounts': merchantAccounts,
  '20261121_0200_catalog': catalog,
  '20261121_0300_checkout': checkout,
  '20261121_0400_subscriptions': subscriptions,
  '20261121_0500_subscription_checkout': subscriptionCheckout,
  '20261121_0600_claims': claims,
  '20261121_0610_claims_checkout': claimsCheckout,
  '20261121_0700_settlement': settlement,
  '20261121_0800_merchant_claim_terms': merchantClaimTerms,
  '20261121_0900_settlement_indexes': settlementIndexes,
  '20261121_1510_events_visibility': eventsVisibility,
  '20261125_1510_settlement_payment_costs': settlementPaymentCosts,
  '20261216_1101_webhook_secrets_at_rest': webhookSecretsAtRest,
  '20261216_1102_webhook_secret_rotation': webhookSecretRotation,
  '20261216_1103_channel_auto_disable': channelAutoDisable,
  '20261216_1104_rate_limits': rateLimits,
  '20261216_1200_subscription_claim_fallback': subscriptionClaimFallback,
  '20261217_0900_mcp_agent_safety': mcpAgentSafety,
  '20261217_1000_claim_refund_transfers': claimRefundTransfers,
  '20261218_0800_member_roles': memberRoles,
  '20261218_0900_account_email': accountEmail,
  '20261218_1000_event_objects': eventObjects,
  '20261219_0900_point_of_sale': pointOfSale,
  '20261220_0100_delivery': delivery,
  '20261221_0100_invoices': invoices,
  '20261222_0900_raw_bank_files': rawBankFiles,
  '20261223_0100_pos_pin_sessions': posPinSessions,
  '20261224_0100_disputes': disputes,
  '20261226_0100_event_object_columns': eventObjectColumns,
  '20261227_0100_api_key_change_notices': apiKeyChangeNotices,
  '20261228_0100_billing_lane_statistics': billingLaneStatistics,
  '20261229_0100_renewal_hot_updates': renewalHotUpdates,
  '20261230_0100_composite_tenant_keys': compositeTenantKeys,
  '20261231_0100_session_intent_once_paid': sessionIntentOncePaid,
  '20261231_0200_mcp_confirmation_objects': mcpConfirmationObjects,
  '20261231_0300_user_locale': userLocale,
  '20270101_0100_einvoice_buyers': einvoiceBuyers,
  '20270101_0110_krafa_invoices': krafaInvoices,
  '20270101_0120_checkout_business_buyer': checkoutBusinessBuyer,
  '20270101_0201_invoice_delivery': invoiceDelivery,
  '20270101_0400_api_key_sightings': apiKeySightings,
  '20270101_0410_merchant_audit_log': merchantAuditLog,
  '20270101_0420_payout_account_changes': payoutAccountChanges,
  '20270101_0300_second_factor': secondFactor,
  '20270101_0301_passkeys': passkeys,
  '20270102_0100_vat_category': vatCategory,
  '20270102_0110_pos_sale_invoices': posSaleInvoices,
  '20270102_0120_credit_note_delivery': creditNoteDelivery,
  '20270102_0201_vat_period': vatPeriod,
  '20270102_0210_books_journal': booksJournal,
  '20270102_0300_collection': collection,
};
