import type { WorkflowClientInterceptor } from '@temporalio/client';
import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import { currentRequestId } from '../stack/request-id';
import { REQUEST_ID_HEADER } from '../workflows/contract';

/** The headers with the current request's id added; as they were outside a request. */
function withRequestIdHeader(headers: Headers): Headers {
  const id = currentRequestId();
  if (id === undefined || headers[REQUEST_ID_HEADER] !== undefined) return headers;
  return { ...headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(id) };
}

/**
 * Sends the id of the request being served with every workflow start, signal and update, so the
 * workflow and its activities log it (decision 0178).
 */
export function requestIdClientInterceptor(): WorkflowClientInterceptor {
  return {
    start: (input, next) => next({ ...input, headers: withRequestIdHeader(input.headers) }),
    startWithDetails: (input, next) => next({ ...input, headers: withRequestIdHeader(input.headers) }),
    signal: (input, next) => next({ ...input, headers: withRequestIdHeader(input.headers) }),
    signalWithStart: (input, next) => next({ ...input, headers: withRequestIdHeader(input.headers) }),
    startUpdate: (input, next) => next({ ...input, headers: withRequestIdHeader(input.headers) }),
  };
}
