import type { RequestHandler, Response } from 'express';
import type { Operator } from '../../services/access';
import { AuthenticationError } from '../../domain/errors';

/** The operator of a request behind `authenticateOperator`. */
export function operatorOf(res: Response): Operator {
  const operator = (res.locals as { operator?: Operator }).operator;
  if (!operator) throw new Error('operatorOf called on a route without operator authentication');
  return operator;
}

/**
 * The operator API's credential: `Authorization: Bearer op_…`, a token created by
 * `npm run operator:create` and stored hashed. API keys are refused here, whatever their mode.
 */
export function authenticateOperator(access: {
  operatorForToken(token: string): Promise<Operator | undefined>;
}): RequestHandler {
  return async (req, res, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '');
    if (!match) {
      throw new AuthenticationError(
        'The operator API needs "Authorization: Bearer op_…" (create one with npm run operator:create)',
        'missing_operator_token',
      );
    }
    const token = match[1]!;
    const operator = await access.operatorForToken(token);
    if (!operator) throw new AuthenticationError('Invalid operator token', 'invalid_operator_token');
    (res.locals as { operator?: Operator }).operator = operator;
    next();
  };
}
