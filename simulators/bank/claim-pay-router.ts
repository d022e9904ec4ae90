import express, { type Request, type Response, type Router } from 'express';
import type { ClaimsLedger } from './claims-ledger';
import { ClaimRuleError } from './claims-rules';

/**
 * `POST /_sim/bank/claims/{claimId}/pay {amount?}`: the payer pays a claim, as on the online-bank
 * page, for test tools without a browser (Skil's `/v1/test_helpers/claims/{id}/pay`). The payment
 * then reaches Skil the way every payment does: through the claim transactions it syncs.
 */
export function createClaimPayRouter(ledger: ClaimsLedger): Router {
  const router = express.Router();
  router.post(
    '/_sim/bank/claims/:claimId/pay',
    express.json({ limit: '1kb' }),
    (req: Request, res: Response) => {
      const amount = (req.body as { amount?: unknown } | undefined)?.amount;
      if (amount !== undefined && (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 1))
        return void res.status(400).json({ error: 'amount must be a whole number of ISK' });
      try {
        const tx = ledger.pay(String(req.params.claimId), amount === undefined ? {} : { amount });
        res.status(201).json(tx);
      } catch (err) {
        if (!(err instanceof ClaimRuleError)) throw err;
        res
          .status(err.resultCode === 'CLAIM_NOT_FOUND' ? 404 : 409)
          .json({ error: err.message, code: err.resultCode });
      }
    },
  );
  return router;
}
