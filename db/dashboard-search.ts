import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';

/** What one search looks for, already read from the merchant's words (services/dashboard/search.ts). */
export interface SearchTerms {
  /** The words as typed, for ids, names, e-mails, descriptions and invoice numbers. */
  text: string;
  /** A whole-krónur amount the words can be read as. */
  amount: number | null;
  /** Four digits: a card's last four. */
  last4: string | null;
  /** Six to ten digits: a kennitala or its start (a dash after the birth date removed). */
  kennitala: string | null;
  /** A krafa's number (one to six digits). */
  claimNumber: number | null;
}

export interface PaymentHit {
  id: string;
  amount: number;
  status: string;
  description: string | null;
  card_last4: string | null;
  created_at: Date;
}
export interface CustomerHit {
  id: string;
  name: string | null;
  email: string | null;
  kennitala: string | null;
  created_at: Date;
}
export interface SubscriptionHit {
  id: string;
  status: string;
  customer_id: string;
  customer_name: string | null;
  created_at: Date;
}
export interface ClaimHit {
  id: string;
  claim_number: number;
  amount: number;
  status: string;
  payer_kennitala: string;
  due_date: string;
}
export interface InvoiceHit {
  id: string;
  number: string;
  total: number;
  status: string;
  customer_id: string | null;
  payment_intent_id: string;
  issued_at: Date;
}

export interface SearchHits {
  payments: PaymentHit[];
  customers: CustomerHit[];
  subscriptions: SubscriptionHit[];
  claims: ClaimHit[];
  invoices: InvoiceHit[];
}

/** `%text%` for ILIKE, with the pattern characters of the text taken literally. */
const contains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The dashboard's search over one merchant and mode (decision 0231): each kind's newest `limit`
 * matches. Every query names the scope's merchant and mode itself, so no match crosses either.
 */
export function createDashboardSearchRepository(db: Db) {
  return {
    async search(scope: Scope, terms: SearchTerms, limit: number): Promise<SearchHits> {
      const own = (alias: string) => ({
        [`${alias}.merchant_id`]: scope.merchantId,
        [`${alias}.livemode`]: scope.livemode,
      });
      const like = contains(terms.text);
      const customerMatch = (alias: string) => (w: Knex.QueryBuilder) => {
        w.where(`${alias}.id`, terms.text)
          .orWhereILike(`${alias}.name`, like)
          .orWhereILike(`${alias}.email`, like);
        if (terms.kennitala) w.orWhereLike(`${alias}.kennitala`, `${terms.kennitala}%`);
      };
      const [payments, customers, subscriptions, claims, invoices] = await Promise.all([
        db('payment_intents as p')
          .leftJoin('payment_methods as pm', 'pm.id', 'p.payment_method_id')
          .where(own('p'))
          .where((w) => {
            w.where('p.id', terms.text).orWhereILike('p.description', like);
            if (terms.last4) w.orWhere('pm.card_last4', terms.last4);
            if (terms.amount !== null) w.orWhere('p.amount', terms.amount);
          })
          .orderBy([
            { column: 'p.created_at', order: 'desc' },
            { column: 'p.id', order: 'desc' },
          ])
          .limit(limit)
          .select('p.id', 'p.amount', 'p.status', 'p.description', 'pm.card_last4', 'p.created_at'),
        db('customers as c')
          .where(own('c'))
          .whereNull('c.deleted_at')
          .where(customerMatch('c'))
          .orderBy([
            { column: 'c.created_at', order: 'desc' },
            { column: 'c.id', order: 'desc' },
          ])
          .limit(limit)
          .select('c.id', 'c.name', 'c.email', 'c.kennitala', 'c.created_at'),
        db('subscriptions as s')
          .join('customers as c', 'c.id', 's.customer_id')
          .where(own('s'))
          .where((w) => {
            w.where('s.id', terms.text).orWhere(customerMatch('c'));
          })
          .orderBy([
            { column: 's.created_at', order: 'desc' },
            { column: 's.id', order: 'desc' },
          ])
          .limit(limit)
          .select('s.id', 's.status', 's.customer_id', 'c.name as customer_name', 's.created_at'),
        db('claims as k')
          .where(own('k'))
          .where((w) => {
            w.where('k.id', terms.text).orWhereILike('k.description', like);
            if (terms.claimNumber !== null) w.orWhere('k.claim_number', terms.claimNumber);
            if (terms.kennitala) w.orWhereLike('k.payer_kennitala', `${terms.kennitala}%`);
            if (terms.amount !== null) w.orWhere('k.amount', terms.amount);
          })
          .orderBy([
            { column: 'k.created_at', order: 'desc' },
            { column: 'k.id', order: 'desc' },
          ])
          .limit(limit)
          .select('k.id', 'k.claim_number', 'k.amount', 'k.status', 'k.payer_kennitala', 'k.due_date'),
        db('invoices as i')
          .where(own('i'))
          .where((w) => {
            w.where('i.id', terms.text).orWhereILike('i.number', like);
          })
          .orderBy([
            { column: 'i.created_at', order: 'desc' },
            { column: 'i.id', order: 'desc' },
          ])
          .limit(limit)
          .select(
            'i.id',
            'i.number',
            'i.total',
            'i.status',
            'i.customer_id',
            'i.payment_intent_id',
            'i.issued_at',
          ),
      ]);
      return {
        payments: payments as PaymentHit[],
        customers: customers as CustomerHit[],
        subscriptions: subscriptions as SubscriptionHit[],
        claims: claims as ClaimHit[],
        invoices: invoices as InvoiceHit[],
      };
    },
  };
}
