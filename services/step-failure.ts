import type { FailureType } from '../workflows/contract';

/**
 * A step of a long process that cannot go on however often it is asked again: no bank connection
 * for the environment, a settlement run that is gone or not in the state the step needs. Services
 * throw it without knowing who runs them; an activity turns it into a non-retryable failure of
 * `type` (activities/adapter-failure.ts), which the workflow reads (decision 0095).
 */
export class StepFailure extends Error {
  constructor(
    message: string,
    readonly type: FailureType,
  ) {
    super(message);
    this.name = 'StepFailure';
  }
}
