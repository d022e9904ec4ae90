/**
 * Why a bank file was refused. Every reason is final for that file (quarantine it with this code):
 * retrying the same bytes cannot succeed, so callers treat CamtError as non-retryable.
 */
export type CamtErrorCode =
  | 'doctype_forbidden' // any <!DOCTYPE: entity expansion (billion laughs) and external entities (XXE)
  | 'entity_forbidden' // an <!ENTITY or undeclared entity reference
  | 'truncated' // the stream ended inside an element
  | 'malformed' // not well-formed XML, or a required element is missing
  | 'unsupported_message' // not camt.053/054, or a version outside .001.02 – .001.08
  | 'invalid_amount' // bad decimal, unknown currency, more decimals than the currency has
  | 'element_too_large' // one entry or header bigger than the configured bound
  | 'control_total_mismatch'; // stated totals disagree with the entries or balances

/** A bank file the parser refuses, with a code for quarantine and the place it was found. */
export class CamtError extends Error {
  override readonly name = 'CamtError';
  constructor(
    readonly code: CamtErrorCode,
    message: string,
    /** The element path (or statement id) where the problem was found, when known. */
    readonly where?: string,
  ) {
    super(where === undefined ? message : `${message} (at ${where})`);
  }
}

/** One control total as stated in the file next to the value computed from the entries. */
export interface ControlCheck {
  check: string;
  stated: string;
  computed: string;
  ok: boolean;
}

/** Stated totals disagree with the entries: the file is not trusted, none of it is money. */
export class CamtControlTotalError extends CamtError {
  constructor(
    readonly statementId: string,
    readonly checks: ControlCheck[],
  ) {
    const failed = checks
      .filter((c) => !c.ok)
      .map((c) => `${c.check}: stated ${c.stated}, computed ${c.computed}`)
      .join('; ');
    super('control_total_mismatch', `control totals do not match: ${failed}`, statementId);
  }
}
