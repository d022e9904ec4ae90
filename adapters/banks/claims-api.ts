/**
 * The claims capability of a bank (IOBWS 3.1 Claims, ÍST TS 315): issue, alter and cancel claims
 * (kröfur), singly or in batches, and read their payments. Types are written by hand from
 * `../shared/spec/iobws/IOBWS-Claims3.1.yaml` for the operations Skil uses and keep the wire names;
 * amounts are JSON numbers on the wire (whole ISK in Skil's use).
 */

import { claimAccount, claimIdOf, parseClaimId, type ClaimKey } from '../../domain/claim-key';

/** `YYYY-MM-DD`. */
export type IsoDate = string;

export type ReferenceDate = 'DueDate' | 'FinalDueDate';
export type ClaimStatus = 'Unpaid' | 'Paid' | 'Cancelled';
export type CollectionState =
  'PrimaryCollection' | 'WaitingForSecondary' | 'SecondaryCollection' | 'LegalCollection';
export type ClaimType = 'NormalClaim' | 'OptionalPaymentClaim' | 'RefundClaim' | 'BalanceClaim';
export type ClaimResultCode =
  | 'CLAIM_EXISTS'
  | 'CLAIM_IS_PAID'
  | 'CLAIM_NOT_FOUND'
  | 'CLAIM_IS_CANCELLED'
  | 'CLAIM_NOT_IN_SECONDARY_STATE'
  | 'CLAIM_OTHERS';

/** `dayAmountItem`. */
export interface DayAmountItem {
  chargeType?: 'Percentage' | 'Amount';
  day?: number;
  value?: number;
}

export interface DefaultCharge {
  referenceDate?: ReferenceDate;
  first?: DayAmountItem;
  second?: DayAmountItem;
}

export interface Discount {
  referenceDate?: ReferenceDate;
  first?: DayAmountItem;
  second?: DayAmountItem;
}

export interface DefaultInterest {
  referenceDate?: ReferenceDate;
  baseAmountType?: 'Amount' | 'AmountAndDefaultCharge';
  baseTimeType?: 'Daily' | '360' | 'Calendar';
  percentage?: number;
}

export interface PaymentFee {
  printingFee: number;
  paperlessFee: number;
}

export interface Address {
  name?: string;
  addressLine?: string;
  postalCode?: string;
  city?: string;
  country?: string;
}

export interface Printing {
  payorAddress?: Address;
  itemRows?: { text?: string; amount?: number }[];
  comments?: string[];
}

/** Fields a claim shares in create, merge-patch and read shapes. */
interface ClaimFields {
  expirationDate?: IsoDate;
  templateCode?: string;
  reference?: string;
  billNumber?: string;
  customerNumber?: string;
  paymentFee?: PaymentFee;
  otherCostsAmount?: number;
  otherDefaultCostsAmount?: number;
  defaultCharge?: DefaultCharge;
  defaultInterest?: DefaultInterest;
  discount?: Discount;
  isOutOfSequencePaymentAllowed?: boolean;
  isPartialPaymentAllowed?: boolean;
  currency?: string;
  additionalInformation?: string;
  printing?: Printing;
}

/** `createClaimDetails`. */
export interface CreateClaimDetails extends ClaimFields {
  claimKey: ClaimKey;
  payorId: string;
  templateCode: string;
  amount: number;
  finalDueDate: IsoDate;
  claimType?: ClaimType;
}

/** `mergeClaimDetails` (RFC 7396 merge patch). */
export interface MergeClaimDetails extends ClaimFields {
  amount?: number;
  finalDueDate?: IsoDate;
  claimStatus?: ClaimStatus;
  collectionState?: CollectionState;
}

/** `alterClaimBatchDetails`. */
export interface AlterClaimBatchDetails extends MergeClaimDetails {
  claimKey: ClaimKey;
}

/** `claimDetails`. */
export interface ClaimDetails extends ClaimFields {
  claimKey: ClaimKey;
  payorId: string;
  templateCode: string;
  amount: number;
  finalDueDate: IsoDate;
  expirationDate: IsoDate;
  claimStatus?: ClaimStatus;
  collectionState?: CollectionState;
  closingDate?: IsoDate;
  claimTemplateId?: string;
  categoryCode?: string;
  defaultChargeAmountDue?: number;
  defaultInterestAmountDue?: number;
  discountAmountOffered?: number;
  noticeChargeAmountDue?: number;
  otherCostsAmountDue?: number;
  otherDefaultCostsAmountDue?: number;
  totalAmountDue?: number;
  isPartiallyPaid?: boolean;
  directPaymentClaim?: boolean;
  lastChangeDate?: string;
  createdDate?: string;
  claimType?: ClaimType;
}

/** `claimStatusSuccess`. */
export interface ClaimStatusSuccess {
  claimKey?: ClaimKey;
  claimId?: string;
  directPaymentClaim?: boolean;
}

/** `claimStatusError`. */
export interface ClaimStatusError {
  claimKey?: ClaimKey;
  claimId?: string;
  resultCode?: ClaimResultCode;
  resultSubCode?: string;
  resultMessage?: string;
}

/** `claimStatusSingleResponse`. */
export interface ClaimStatusSingleResponse {
  success?: ClaimStatusSuccess;
  error?: ClaimStatusError;
}

/** `batchStatus`. */
export interface BatchStatus {
  batchId?: string;
  success?: number;
  failed?: number;
  pending?: number;
  actionType?: 'create' | 'alter';
  actions?: { successes?: ClaimStatusSuccess[]; errors?: ClaimStatusError[] };
}

/** `claimTransaction`: one payment (or refund) of a claim. */
export interface ClaimTransaction {
  claimKey?: ClaimKey;
  payorId?: string;
  amount?: number;
  finalDueDate?: IsoDate;
  templateCode?: string;
  claimTemplateId?: string;
  reference?: string;
  categoryCode?: string;
  transactionBank?: string;
  transactionTimestamp?: string;
  bookingDate?: IsoDate;
  valueDate?: IsoDate;
  paymentType?: 'Complete' | 'Partial' | 'Refund';
  depositedAmount?: number;
  totalAmountPaid?: number;
  capitalGainsTax?: number;
  billNumber?: string;
  customerNumber?: string;
  noticeChargeAmountPaid?: number;
  defaultChargeAmountPaid?: number;
  otherCostsAmountPaid?: number;
  otherDefaultCostsAmountPaid?: number;
  defaultInterestAmountPaid?: number;
  discountAmountGiven?: number;
  currency?: string;
  currencyExchange?: { currency?: string; rate?: number };
  transactionBatchId?: string;
}

/** One page of a list, with the standard's X-Paging-* headers. */
export interface Paged<T> {
  items: T[];
  page: number;
  totalPages: number;
  totalItems: number;
  perPage: number;
}

export interface PageQuery {
  page?: number;
  itemsPerPage?: number;
}

/** Query of `GET /v1/claims/transactions`. */
export interface ClaimTransactionsQuery extends PageQuery {
  dateFrom: IsoDate;
  dateTo: IsoDate;
  claimantId?: string;
  templateCode?: string;
  depositAccount?: string;
}

/**
 * Every mutating call names the business identity of the change (e.g. `claim-batch/test/42`,
 * `clm_…:cancel`); the client derives the X-Idempotency-Key from it, so a retry of the same
 * business action, in any process, never acts twice.
 */
export interface MutationOptions {
  idempotencyIdentity: string;
}

/** A bank's claims service. */
export { claimAccount, claimIdOf, parseClaimId, type ClaimKey };

export interface ClaimsApi {
  /** `POST /v1/claims`: one claim, synchronously. */
  createClaim(claim: CreateClaimDetails, opts: MutationOptions): Promise<ClaimStatusSuccess>;
  /** `POST /v1/batches` with `actionType: create`; returns the batch as accepted (mostly pending). */
  createClaimsBatch(claims: CreateClaimDetails[], opts: MutationOptions): Promise<BatchStatus>;
  /** `POST /v1/batches` with `actionType: alter`. */
  alterClaimsBatch(changes: AlterClaimBatchDetails[], opts: MutationOptions): Promise<BatchStatus>;
  /** `GET /v1/batches/{batchId}`. */
  getBatch(batchId: string): Promise<BatchStatus>;
  /** `PATCH /v1/claims/{claimId}` (merge patch). */
  alterClaim(claimId: string, patch: MergeClaimDetails, opts: MutationOptions): Promise<ClaimStatusSuccess>;
  /** `PATCH /v1/claims/{claimId}` with `claimStatus: Cancelled`. */
  cancelClaim(claimId: string, opts: MutationOptions): Promise<ClaimStatusSuccess>;
  /** `GET /v1/claims/{claimId}`. */
  getClaim(claimId: string): Promise<ClaimDetails>;
  /** `GET /v1/claims/{claimId}/transactions`. */
  getClaimTransactions(claimId: string, query?: PageQuery): Promise<Paged<ClaimTransaction>>;
  /** `GET /v1/claims/transactions`: payments of many claims by booking date. */
  listClaimTransactions(query: ClaimTransactionsQuery): Promise<Paged<ClaimTransaction>>;
}
