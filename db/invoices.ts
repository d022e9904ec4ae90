import type { Locale } from '../domain/locale';
import type { Db, Knex } from './knex';
import type { Scope } from '../domain/scope';
import type { InvoiceLine, VatPerRate } from '../domain/invoices';
import type { VatRate } from '../domain/vat';
import type { VatTreatment } from '../domain/vat-category';
import type { LegalAddress } from '../domain/merchant-profile';
import type { Address } from './customers';
import { sqlArgs } from './event-batch';
import { pageByCreated } from './pagination';
import { existsInOtherMode, type PageOptions } from './tenant';

export interface Seller {
  name: string;
  kennitala: string | null;
  vat_number: string | null;
  address: LegalAddress | null;
  bank_account: string | null;
}

export interface Buyer {
  name: string | null;
  email: string | null;
  kennitala: string | null;
  address: Address | null;
  /** The customer's e-invoice fields when the invoice was issued; absent on invoices issued before them (decision 0210). */
  business?: boolean;
  gln?: string | null;
  peppol_id?: string | null;
}

/**
 * A sale to invoice, with what its invoice is made of: a captured payment, or a krafa the bank has
 * accepted (then `claim` is set, `payment_intent_id` null and `captured_at` the time of issue).
 */
export interface SaleSource {
  payment_intent_id: string | null;
  claim: {
    id: string;
    /** Bank, ledger 66, claim number: the account the payer pays into (TS 315). */
    account: string;
    due_date: string;
    final_due_date: string;
  } | null;
  merchant_id: string;
  livemode: boolean;
  amount_captured: number;
  captured_at: Date;
  description: string | null;
  customer_id: string | null;
  subscription_id: string | null;
  checkout_session_id: string | null;
  renewal: {
    period_start: Date;
    quantity: number;
    unit_amount: number;
    amount_subtotal: number;
    discount_amount: number;
    proration_amount: number;
    amount: number;
    vat_rate: VatRate;
    product_name: string;
    /** The product's category as it stands when the invoice is issued (decision 0234). */
    vat: Partial<VatTreatment> | null;
  } | null;
  session: {
    items: ({
      description: string;
      quantity: number;
      unit_amount: number;
      vat_rate: VatRate;
    } & Partial<VatTreatment>)[];
    discount_amount: number;
    product_name: string | null;
    customer_name: string | null;
    customer_email: string | null;
  } | null;
  /** A till sale to a business buyer (decision 0235): its lines as sold. */
  pos: {
    sale_id: string;
    lines: ({
      description: string;
      quantity: number;
      unit_amount: number;
      discount_amount: number;
      vat_rate: VatRate;
    } & Partial<VatTreatment>)[];
  } | null;
  seller: Seller;
  /** The merchant's default VAT rate in force (decision 0138). */
  default_vat_rate: VatRate;
  buyer: Buyer;
}

export interface InvoiceDraft {
  id: string;
  merchantId: string;
  livemode: boolean;
  paymentIntentId: string | null;
  claim: SaleSource['claim'];
  posSaleId: string | null;
  customerId: string | null;
  subscriptionId: string | null;
  checkoutSessionId: string | null;
  seller: Seller;
  buyer: Buyer;
  lines: InvoiceLine[];
  vat: VatPerRate[];
  total: number;
  totalVat: number;
  issuedAt: Date;
  suppliedAt: Date;
}

export interface InvoiceRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  sequence: number;
  number: string;
  status: 'paid' | 'open';
  /** The payment: the charge, or for a krafa the payment intent made when it was paid (null until then). */
  payment_intent_id: string | null;
  /** The krafa that collects this invoice (decision 0211). */
  claim_id: string | null;
  /** The till sale it invoices (decision 0235). */
  pos_sale_id: string | null;
  claim_account: string | null;
  customer_id: string | null;
  subscription_id: string | null;
  checkout_session_id: string | null;
  seller: Seller;
  buyer: Buyer;
  lines: InvoiceLine[];
  vat: VatPerRate[];
  total: number;
  total_vat: number;
  amount_credited: number;
  issued_at: Date;
  supplied_at: Date;
  due_date: string | null;
  final_due_date: string | null;
  payment_reference: string;
  created_at: Date;
}

export interface CreditNoteRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  sequence: number;
  number: string;
  invoice_id: string;
  /** What it credits: a refund, or a krafa cancelled unpaid (decision 0211). */
  refund_id: string | null;
  claim_id: string | null;
  /** Or a till refund of an invoiced till sale (decision 0235). */
  pos_refund_id: string | null;
  lines: InvoiceLine[];
  vat: VatPerRate[];
  total: number;
  total_vat: number;
  issued_at: Date;
  created_at: Date;
}

/** A `date` column as node-postgres reads it (local midnight) back to its YYYY-MM-DD. */
function isoDay(d: string | Date | null): string | null {
  if (!(d instanceof Date)) return d;
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

const invoiceRow = (r: InvoiceRow): InvoiceRow => ({
  ...r,
  due_date: isoDay(r.due_date),
  final_due_date: isoDay(r.final_due_date),
  total: Number(r.total),
  total_vat: Number(r.total_vat),
  amount_credited: Number(r.amount_credited),
});
const creditNoteRow = (r: CreditNoteRow): CreditNoteRow => ({
  ...r,
  total: Number(r.total),
  total_vat: Number(r.total_vat),
});

/** The printed number from the sequence: test documents say so, so none passes for a live one. */
const NUMBER_SQL = (seq: string, livemode: string) =>
  `case when ${livemode} then lpad((${seq})::text, 6, '0') else 'TEST-' || lpad((${seq})::text, 6, '0') end`;

/**
 * Takes `n` numbers of the merchant's sequence in the environment, returning the last. The row stays
 * locked until the transaction ends: issuers queue on it, and a rollback gives the numbers back, so
 * the sequence has no gaps (decision 0139).
 */
const TAKE_NUMBERS = `insert into invoice_sequences as s (merchant_id, livemode, last_number)
  select merchant_id, livemode, n from counts order by merchant_id, livemode
  on conflict (merchant_id, livemode) do update set last_number = s.last_number + excluded.last_number
  returning merchant_id, livemode, last_number`;

/**
 * What every sale's invoice is made of, whatever paid it: the renewal's period and product, the
 * checkout's items, the seller as the merchant profile stands, the merchant's default VAT rate.
 * The query names the renewal `r`, the merchant `m`; SALE_JOINS adds the rest.
 */
const SALE_COLUMNS = `case when r.id is null then null else json_build_object(
    'period_start', r.period_start, 'quantity', r.quantity, 'unit_amount', pr.unit_amount::int,
    'amount_subtotal', r.amount_subtotal::int, 'discount_amount', r.discount_amount::int,
    'proration_amount', r.proration_amount::int, 'amount', r.amount::int, 'vat_rate', r.vat_rate,
    'product_name', prod.name, 'vat', json_build_object('vat_category', prod.vat_category,
      'vat_exemption_reason', prod.vat_exemption_reason,
      'vat_exemption_reason_code', prod.vat_exemption_reason_code)) end as renewal,
  case when cs.id is null then null else json_build_object(
    'items', cs.items, 'discount_amount', cs.discount_amount::int, 'product_name', csp.name,
    'customer_name', cs.customer_name, 'customer_email', cs.customer_email) end as session,
  json_build_object('name', m.name, 'kennitala', m.kennitala, 'vat_number', m.vat_number,
    'address', m.legal_address, 'bank_account', m.bank_account) as seller,
  coalesce(m.default_vat_rate, case when m.vat_number is null then 0 else 24 end) as default_vat_rate`;

const SALE_JOINS = (sessionId: string, customerId: string) => `
  left join prices pr on pr.id = r.price_id
  left join products prod on prod.id = pr.product_id
  left join checkout_sessions cs on cs.id = ${sessionId}
  left join products csp on csp.id = cs.product_id
  left join customers c on c.id = ${customerId}`;

/** The buyer as the invoice keeps it: the customer's fields, else what the checkout collected (decision 0210). */
const buyerOf = (kennitala: string) =>
  `json_build_object('name', coalesce(c.name, cs.customer_name), 'email', coalesce(c.email, cs.customer_email),
    'kennitala', ${kennitala}, 'address', c.address, 'business', coalesce(c.business, false),
    'gln', c.gln, 'peppol_id', c.peppol_id) as buyer`;

const saleSource = (r: SaleSource): SaleSource => ({
  ...r,
  renewal: r.renewal && { ...r.renewal, period_start: new Date(r.renewal.period_start) },
});

export function createInvoiceRepository(db: Db) {
  const scoped = (table: string, scope: Scope, trx: Db = db) =>
    trx(table).where({ merchant_id: scope.merchantId, livemode: scope.livemode });

  return {
    /**
     * The sales among these payment intents that have no invoice yet: captured, and made by a
     * renewal or a checkout session. One query for a whole billing page.
     */
    async findUninvoicedSales(
      trx: Knex.Transaction,
      paymentIntentIds: readonly string[],
    ): Promise<SaleSource[]> {
      if (paymentIntentIds.length === 0) return [];
      const result = await trx.raw<{ rows: SaleSource[] }>(
        `select p.id as payment_intent_id, null as claim, p.merchant_id, p.livemode,
                p.amount_captured::int as amount_captured, p.captured_at, p.description, p.customer_id,
                coalesce(p.subscription_id, r.subscription_id) as subscription_id, p.checkout_session_id,
                ${SALE_COLUMNS}, ${buyerOf('c.kennitala')}
           from payment_intents p
           join merchants m on m.id = p.merchant_id
           left join renewals r on r.payment_intent_id = p.id
           ${SALE_JOINS('p.checkout_session_id', 'p.customer_id')}
          where p.id = any(?::text[]) and p.status = 'succeeded' and (r.id is not null or cs.id is not null)
            and not exists (select 1 from invoices i where i.payment_intent_id = p.id)
          order by p.captured_at, p.id`,
        sqlArgs(paymentIntentIds),
      );
      return result.rows.map(saleSource);
    },

    /**
     * The sales among these kröfur, just accepted by the bank, that have no invoice yet: a checkout
     * paid by krafa or a renewal collected by one (decision 0211). The payer's kennitala is the
     * buyer's when its customer has none.
     */
    async findUninvoicedClaimSales(
      trx: Knex.Transaction,
      claimIds: readonly string[],
    ): Promise<SaleSource[]> {
      if (claimIds.length === 0) return [];
      const result = await trx.raw<{ rows: SaleSource[] }>(
        `select null as payment_intent_id,
                json_build_object('id', k.id, 'account', k.bank || '66' || lpad(k.claim_number::text, 6, '0'),
                  'due_date', k.due_date, 'final_due_date', k.final_due_date) as claim,
                k.merchant_id, k.livemode, k.amount::int as amount_captured, coalesce(k.issued_at, now()) as captured_at,
                k.description, coalesce(k.customer_id, cs.customer_id) as customer_id, r.subscription_id,
                k.checkout_session_id,
                ${SALE_COLUMNS}, ${buyerOf('coalesce(c.kennitala, k.payer_kennitala)')}
           from claims k
           join merchants m on m.id = k.merchant_id
           left join renewals r on r.id = k.renewal_id
           ${SALE_JOINS('k.checkout_session_id', 'coalesce(k.customer_id, cs.customer_id)')}
          where k.id = any(?::text[]) and k.status = 'issued' and (r.id is not null or cs.id is not null)
            and not exists (select 1 from invoices i where i.claim_id = k.id)
          order by k.issued_at, k.id`,
        sqlArgs(claimIds),
      );
      return result.rows.map(saleSource);
    },

    /**
     * The till sale to invoice, in its transaction (decision 0235): its lines, the seller, and its
     * customer as buyer; nothing when it has no customer or already has its invoice.
     */
    async findUninvoicedPosSale(trx: Knex.Transaction, saleId: string): Promise<SaleSource | undefined> {
      const result = await trx.raw<{ rows: SaleSource[] }>(
        `select null as payment_intent_id, null as claim, s.merchant_id, s.livemode, s.total::int as amount_captured,
                s.created_at as captured_at, null as description, s.customer_id, null as subscription_id,
                null as checkout_session_id,
                json_build_object('sale_id', s.id, 'lines', (
                  select json_agg(json_build_object('description', l.description, 'quantity', l.quantity,
                    'unit_amount', l.unit_amount::int, 'discount_amount', l.discount_amount::int,
                    'vat_rate', l.vat_rate, 'vat_category', l.vat_category,
                    'vat_exemption_reason', l.vat_exemption_reason,
                    'vat_exemption_reason_code', l.vat_exemption_reason_code) order by l.position)
                  from pos_sale_lines l where l.sale_id = s.id)) as pos,
                ${SALE_COLUMNS}, ${buyerOf('c.kennitala')}
           from pos_sales s
           join merchants m on m.id = s.merchant_id
           left join renewals r on false
           ${SALE_JOINS('null', 's.customer_id')}
          where s.id = ? and s.customer_id is not null
            and not exists (select 1 from invoices i where i.pos_sale_id = s.id)`,
        [saleId],
      );
      return result.rows.map(saleSource)[0];
    },

    /** The invoice of a till sale, locked, for the credit note of a till refund (decision 0235). */
    async lockOfPosSale(trx: Knex.Transaction, saleId: string): Promise<InvoiceRow | undefined> {
      const row = await trx<InvoiceRow>('invoices').where({ pos_sale_id: saleId }).forUpdate().first();
      return row && invoiceRow(row);
    },

    /** The invoices of these till sales, by sale id. */
    async ofPosSales(saleIds: readonly string[], trx: Db = db): Promise<Map<string, string>> {
      if (saleIds.length === 0) return new Map();
      const rows: { id: string; pos_sale_id: string }[] = await trx('invoices')
        .whereIn('pos_sale_id', [...saleIds])
        .select('id', 'pos_sale_id');
      return new Map(rows.map((r) => [r.pos_sale_id, r.id]));
    },

    /**
     * Inserts the drafts numbered in their order, in one statement: each merchant's environment
     * takes as many numbers as it has drafts from its sequence (allocation in batches).
     */
    async insertNumbered(trx: Knex.Transaction, drafts: readonly InvoiceDraft[]): Promise<InvoiceRow[]> {
      if (drafts.length === 0) return [];
      const result = await trx.raw<{ rows: InvoiceRow[] }>(
        `with d as (
           select t.*, e.ord from jsonb_array_elements(?::jsonb) with ordinality as e(doc, ord),
             jsonb_to_record(e.doc) as t(
               id text, merchant_id text, livemode boolean, payment_intent_id text, claim_id text,
               pos_sale_id text, claim_account text, due_date date, final_due_date date, customer_id text,
               subscription_id text, checkout_session_id text, seller jsonb, buyer jsonb, lines jsonb, vat jsonb,
               total bigint, total_vat bigint, issued_at timestamptz, supplied_at timestamptz)
         ), counts as (
           select merchant_id, livemode, count(*)::int as n from d group by merchant_id, livemode
         ), seq as (${TAKE_NUMBERS}),
         numbered as (
           select d.*, seq.last_number - counts.n
                  + row_number() over (partition by d.merchant_id, d.livemode order by d.ord)::int as sequence
             from d join counts using (merchant_id, livemode) join seq using (merchant_id, livemode)
         )
         insert into invoices (id, merchant_id, livemode, sequence, number, status, payment_intent_id, claim_id,
                pos_sale_id, claim_account, due_date, final_due_date, customer_id, subscription_id, checkout_session_id, seller,
                buyer, lines, vat, total, total_vat, issued_at, supplied_at, payment_reference)
         select id, merchant_id, livemode, sequence, ${NUMBER_SQL('sequence', 'livemode')},
                case when claim_id is null then 'paid' else 'open' end, payment_intent_id, claim_id, pos_sale_id,
                claim_account,
                due_date, final_due_date, customer_id, subscription_id, checkout_session_id, seller, buyer, lines,
                vat, total, total_vat, issued_at, supplied_at, coalesce(claim_account, payment_intent_id, pos_sale_id)
           from numbered order by ord
         returning *`,
        sqlArgs(
          JSON.stringify(
            drafts.map((d) => ({
              id: d.id,
              merchant_id: d.merchantId,
              livemode: d.livemode,
              payment_intent_id: d.paymentIntentId,
              claim_id: d.claim?.id ?? null,
              pos_sale_id: d.posSaleId,
              claim_account: d.claim?.account ?? null,
              due_date: d.claim?.due_date ?? null,
              final_due_date: d.claim?.final_due_date ?? null,
              customer_id: d.customerId,
              subscription_id: d.subscriptionId,
              checkout_session_id: d.checkoutSessionId,
              seller: d.seller,
              buyer: d.buyer,
              lines: d.lines,
              vat: d.vat,
              total: d.total,
              total_vat: d.totalVat,
              issued_at: d.issuedAt.toISOString(),
              supplied_at: d.suppliedAt.toISOString(),
            })),
          ),
        ),
      );
      return result.rows.map(invoiceRow).sort((a, b) => a.sequence - b.sequence);
    },

    /** The invoice of a payment, locked, for a credit note against it. */
    async lockOfPayment(trx: Knex.Transaction, paymentIntentId: string): Promise<InvoiceRow | undefined> {
      const row = await trx<InvoiceRow>('invoices')
        .where({ payment_intent_id: paymentIntentId })
        .forUpdate()
        .first();
      return row && invoiceRow(row);
    },

    /**
     * The open invoice of a krafa follows it (decision 0211): paid with the payment intent its
     * payment made, or open again on a reversal. The invoice when its status changed.
     */
    async followClaim(
      trx: Knex.Transaction,
      claimId: string,
      to: { status: 'paid'; paymentIntentId: string | null } | { status: 'open' },
    ): Promise<InvoiceRow | undefined> {
      const [row] = (await trx('invoices')
        .where({ claim_id: claimId })
        .whereNot({ status: to.status })
        .update({
          status: to.status,
          ...(to.status === 'paid' && {
            payment_intent_id: trx.raw('coalesce(payment_intent_id, ?)', [to.paymentIntentId]),
          }),
        })
        .returning('*')) as InvoiceRow[];
      return row && invoiceRow(row);
    },

    /** The invoice of a krafa, locked, for the credit note of its cancellation. */
    async lockOfClaim(trx: Knex.Transaction, claimId: string): Promise<InvoiceRow | undefined> {
      const row = await trx<InvoiceRow>('invoices').where({ claim_id: claimId }).forUpdate().first();
      return row && invoiceRow(row);
    },

    /** A credit note numbered from the same sequence as the invoices (decision 0139). */
    async insertCreditNote(
      trx: Knex.Transaction,
      note: Omit<CreditNoteRow, 'sequence' | 'number' | 'created_at'>,
    ): Promise<CreditNoteRow> {
      const result = await trx.raw<{ rows: CreditNoteRow[] }>(
        `with counts as (select ?::text as merchant_id, ?::boolean as livemode, 1 as n),
         seq as (${TAKE_NUMBERS}),
         inv as (update invoices set amount_credited = amount_credited + ? where id = ? returning id)
         insert into credit_notes (id, merchant_id, livemode, sequence, number, invoice_id, refund_id, claim_id,
                pos_refund_id, lines, vat, total, total_vat, issued_at)
         select ?, ?, ?, seq.last_number, ${NUMBER_SQL('seq.last_number', '?::boolean')}, (select id from inv), ?, ?,
                ?, ?::jsonb, ?::jsonb, ?, ?, ?
           from seq
         returning *`,
        sqlArgs(
          note.merchant_id,
          note.livemode,
          note.total,
          note.invoice_id,
          note.id,
          note.merchant_id,
          note.livemode,
          note.livemode,
          note.refund_id,
          note.claim_id,
          note.pos_refund_id,
          JSON.stringify(note.lines),
          JSON.stringify(note.vat),
          note.total,
          note.total_vat,
          note.issued_at,
        ),
      );
      return creditNoteRow(result.rows[0]!);
    },

    /**
     * What a receipt email needs of a paid payment: its invoice, the buyer's address and language, and
     * whether the merchant sends receipts. Undefined when the payment has no invoice.
     */
    async receiptOfPayment(
      paymentIntentId: string,
      trx: Db = db,
    ): Promise<
      { invoice: InvoiceRow; email: string | null; locale: Locale | null; send: boolean } | undefined
    > {
      type Found = InvoiceRow & { receipt_emails: boolean; session_locale: Locale | null };
      const row: Found | undefined = await trx<Found>('invoices as i')
        .join('merchants as m', 'm.id', 'i.merchant_id')
        .leftJoin('checkout_sessions as cs', 'cs.id', 'i.checkout_session_id')
        .where('i.payment_intent_id', paymentIntentId)
        .first('i.*', 'm.receipt_emails', 'cs.locale as session_locale');
      if (!row) return undefined;
      const { receipt_emails, session_locale, ...invoice } = row;
      return {
        invoice: invoiceRow(invoice),
        email: invoice.buyer.email,
        locale: session_locale,
        send: receipt_emails,
      };
    },

    /** The invoice of a payment, if it has one (one per charge, decision 0139). */
    async findByPayment(
      scope: Scope,
      paymentIntentId: string,
      trx: Db = db,
    ): Promise<InvoiceRow | undefined> {
      const row = await scoped('invoices', scope, trx)
        .where({ payment_intent_id: paymentIntentId })
        .first<InvoiceRow | undefined>();
      return row && invoiceRow(row);
    },

    async findById(scope: Scope, id: string, trx: Db = db): Promise<InvoiceRow | undefined> {
      const row: InvoiceRow | undefined = await trx<InvoiceRow>('invoices')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .first();
      return row && invoiceRow(row);
    },

    async findByIds(ids: readonly string[], trx: Db = db): Promise<InvoiceRow[]> {
      if (ids.length === 0) return [];
      return ((await trx('invoices').whereIn('id', ids)) as InvoiceRow[]).map(invoiceRow);
    },

    existsInOtherMode: (scope: Scope, id: string) => existsInOtherMode(db, 'invoices', scope, id),

    async list(
      scope: Scope,
      opts: PageOptions & { customerId?: string; subscriptionId?: string; paymentIntentId?: string },
      trx: Db = db,
    ) {
      const q = scoped('invoices', scope, trx);
      if (opts.customerId !== undefined) q.where({ customer_id: opts.customerId });
      if (opts.subscriptionId !== undefined) q.where({ subscription_id: opts.subscriptionId });
      if (opts.paymentIntentId !== undefined) q.where({ payment_intent_id: opts.paymentIntentId });
      const page = await pageByCreated<InvoiceRow>(q, 'invoices', scope, opts);
      return { ...page, data: page.data.map(invoiceRow) };
    },

    async findCreditNote(scope: Scope, id: string, trx: Db = db): Promise<CreditNoteRow | undefined> {
      const row: CreditNoteRow | undefined = await trx<CreditNoteRow>('credit_notes')
        .where({ id, merchant_id: scope.merchantId, livemode: scope.livemode })
        .first();
      return row && creditNoteRow(row);
    },

    creditNoteExistsInOtherMode: (scope: Scope, id: string) =>
      existsInOtherMode(db, 'credit_notes', scope, id),

    async listCreditNotes(scope: Scope, opts: PageOptions & { invoiceId?: string }, trx: Db = db) {
      const q = scoped('credit_notes', scope, trx);
      if (opts.invoiceId !== undefined) q.where({ invoice_id: opts.invoiceId });
      const page = await pageByCreated<CreditNoteRow>(q, 'credit_notes', scope, opts);
      return { ...page, data: page.data.map(creditNoteRow) };
    },

    /** The sellers of these invoices as issued, by invoice id: how their credit notes are presented. */
    async sellersOf(scope: Scope, invoiceIds: readonly string[], trx: Db = db): Promise<Map<string, Seller>> {
      if (invoiceIds.length === 0) return new Map();
      const rows: { id: string; seller: Seller }[] = await scoped('invoices', scope, trx)
        .whereIn('id', [...invoiceIds])
        .select('id', 'seller');
      return new Map(rows.map((r) => [r.id, r.seller]));
    },
  };
}

export type InvoiceRepository = ReturnType<typeof createInvoiceRepository>;
