import { Router } from 'express';
import { requireCsrf, requireUser, type WebContext } from './context';
import { requireAction, viewPreferences } from './frame';
import { homePages } from './home';
import { paymentPages } from './payments';
import { customerPages } from './customers';
import { customerEditPages } from './customer-edit';
import { subscriptionPages } from './subscriptions';
import { catalogPages } from './catalog';
import { paymentLinkPages } from './payment-links';
import { claimPages } from './claims';
import { eventPages } from './events';
import { settlementPages } from './settlement';
import { webhookListPages } from './webhooks';
import { webhookChannelPages } from './webhook-channel';
import { tillPages } from './tills';
import { searchPages } from './search';
import { invoicePages } from './invoices';
import { vatReportPages } from './vat-report';
import { journalPages } from './journal';

/** The paths of the merchant's pages; each is for signed-in merchant members, its forms CSRF-checked. */
const MERCHANT_AREAS = [
  '/dashboard/home',
  '/dashboard/payments',
  '/dashboard/customers',
  '/dashboard/subscriptions',
  '/dashboard/products',
  '/dashboard/payment-links',
  '/dashboard/claims',
  '/dashboard/events',
  '/dashboard/webhooks',
  '/dashboard/settlement',
  '/dashboard/tills',
  '/dashboard/search',
  '/dashboard/invoices',
  '/dashboard/vat',
  '/dashboard/journal',
];

/**
 * The merchant's own pages (decision 0118): every one reads through the API's services with the
 * member's merchant and the mode shown; each role sees and may post only what domain/member-roles.ts
 * allows (decision 0119).
 */
export function merchantPages(ctx: WebContext): Router {
  const router = Router();
  router.use(
    MERCHANT_AREAS,
    requireUser('merchant'),
    requireCsrf(ctx),
    viewPreferences(ctx),
    requireAction('read'),
  );
  router.use('/dashboard/settlement', requireAction('read_settlement'));
  router.use('/dashboard/vat', requireAction('read_settlement'));
  router.use('/dashboard/journal', requireAction('read_settlement'));
  router.use('/dashboard/webhooks', requireAction('manage_webhooks'));
  // Pairing a till hands out a credential: the same members who manage API keys and device logins.
  router.use('/dashboard/tills', requireAction('manage_keys'));
  router.use(homePages(ctx));
  router.use(paymentPages(ctx));
  router.use(customerEditPages(ctx));
  router.use(customerPages(ctx));
  router.use(subscriptionPages(ctx));
  router.use(catalogPages(ctx));
  router.use(paymentLinkPages(ctx));
  router.use(claimPages(ctx));
  router.use(eventPages(ctx));
  router.use(settlementPages(ctx));
  router.use(webhookListPages(ctx));
  router.use(webhookChannelPages(ctx));
  router.use(tillPages(ctx));
  router.use(searchPages(ctx));
  router.use(invoicePages(ctx));
  router.use(vatReportPages(ctx));
  router.use(journalPages(ctx));
  return router;
}
