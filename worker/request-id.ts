import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { withRequestId } from '../stack/request-id';
import { REQUEST_ID_HEADER } from '../workflows/contract';

/**
 * An activity scheduled for an API request runs as work for that request (decision 0178): the
 * pino logger of its dependencies adds the id to every line, as does the SDK's activity logger,
 * and workflows it starts or signals get it in their headers.
 */
export const requestIdActivityInterceptor: ActivityInterceptorsFactory = () => {
  let requestId: string | undefined;
  return {
    inbound: {
      execute: (input, next) => {
        const payload = input.headers[REQUEST_ID_HEADER];
        if (payload === undefined) return next(input);
        const id = defaultPayloadConverter.fromPayload<string>(payload);
        requestId = id;
        return withRequestId(id, () => next(input));
      },
    },
    outbound: {
      getLogAttributes: (input, next) => next(requestId === undefined ? input : { ...input, requestId }),
    },
  };
};

/** The workflow interceptor modules, for the worker and for every prebuilt workflow bundle. */
export const WORKFLOW_INTERCEPTOR_MODULES = [require.resolve('../workflows/interceptors')];
