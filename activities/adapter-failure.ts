import { ApplicationFailure } from '@temporalio/activity';
import { AcquirerError } from '../adapters/acquirers/card-acquirer';
import { BankAuthenticationError, BankError, BankPermissionError } from '../adapters/banks/claims-errors';
import { TransportError } from '../adapters/banks/bank-file-transport';
import { FailureType } from '../workflows/contract';
import { StepFailure } from '../services/step-failure';

/**
 * The one retry rule for activities that call the outside world. Each adapter classifies its raw
 * failures once (toBankError, toTransportError, toAcquirerError) into an error that says whether
 * asking again can help; here that answer becomes Temporal's: a transient fault stays a plain error,
 * which the activity's retry policy retries, and a final answer becomes a non-retryable
 * ApplicationFailure whose type comes from the contract's FailureType.
 */

/** An error an adapter has classified (claims service, bank file transport, card acquirer). */
export type AdapterError = BankError | TransportError | AcquirerError;

export function isAdapterError(err: unknown): err is AdapterError {
  return err instanceof BankError || err instanceof TransportError || err instanceof AcquirerError;
}

/** Whether the adapter says asking again cannot help (refused credentials, a refused request). */
export function isFinalAdapterError(err: unknown): err is AdapterError {
  return isAdapterError(err) && !err.retryable;
}

/** Refusals of who we are, rather than of what we asked. */
function refusesAccess(err: AdapterError): boolean {
  if (err instanceof TransportError)
    return err.kind === 'authentication_failed' || err.kind === 'host_key_mismatch';
  return err instanceof BankAuthenticationError || err instanceof BankPermissionError;
}

function detailsOf(err: AdapterError): Record<string, string | number | null> {
  if (err instanceof TransportError) return { error: err.name, kind: err.kind, code: err.code ?? null };
  return { error: err.name, code: err.code, status: err.status };
}

/**
 * What an activity throws for `err`: a final adapter error, or a service's step that cannot go on,
 * as a non-retryable failure; anything else as it is, for Temporal to retry.
 */
export function toActivityFailure(err: unknown): unknown {
  if (err instanceof StepFailure) return ApplicationFailure.nonRetryable(err.message, err.type);
  if (!isFinalAdapterError(err)) return err;
  return ApplicationFailure.create({
    message: err.message,
    type: refusesAccess(err) ? FailureType.AdapterAccessRefused : FailureType.AdapterRequestRefused,
    nonRetryable: true,
    cause: err,
    details: [detailsOf(err)],
  });
}

/** Runs an adapter call, or a service step that makes them, under the rule above. */
export async function callAdapter<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw toActivityFailure(err);
  }
}
