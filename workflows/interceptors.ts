import {
  defaultPayloadConverter,
  log,
  type Headers,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import { REQUEST_ID_HEADER } from './contract';

/**
 * Carries the API request id through a workflow (decision 0178): read from the headers of its
 * start, signals and updates (the latest request that reached it wins, for that is what the work
 * after it is for), added to every line the workflow logs, and sent on to its activities, child
 * workflows and its next run. The factory runs once per workflow, so the id is that workflow's own.
 * Each request that reaches the workflow is logged once (the SDK's own "Workflow started" line
 * is written before any interceptor has read the headers).
 */
export const interceptors: WorkflowInterceptorsFactory = () => {
  let requestId: string | undefined;
  const take = (headers: Headers, what: string) => {
    const payload = headers[REQUEST_ID_HEADER];
    if (payload === undefined) return;
    requestId = defaultPayloadConverter.fromPayload<string>(payload);
    log.info('request reached the workflow', { through: what });
  };
  const give = (headers: Headers): Headers =>
    requestId === undefined || headers[REQUEST_ID_HEADER] !== undefined
      ? headers
      : { ...headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(requestId) };
  return {
    inbound: [
      {
        execute: (input, next) => {
          take(input.headers, 'start');
          return next(input);
        },
        handleSignal: (input, next) => {
          take(input.headers, `signal ${input.signalName}`);
          return next(input);
        },
        handleUpdate: (input, next) => {
          take(input.headers, `update ${input.name}`);
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next({ ...input, headers: give(input.headers) }),
        scheduleLocalActivity: (input, next) => next({ ...input, headers: give(input.headers) }),
        startChildWorkflowExecution: (input, next) => next({ ...input, headers: give(input.headers) }),
        continueAsNew: (input, next) => next({ ...input, headers: give(input.headers) }),
        signalWorkflow: (input, next) => next({ ...input, headers: give(input.headers) }),
        getLogAttributes: (input, next) => next(requestId === undefined ? input : { ...input, requestId }),
      },
    ],
  };
};
