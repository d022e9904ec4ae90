import type { Knex } from '../../db/knex';
import { createCheckoutSessionRepository, type CheckoutSessionRow } from '../../db/checkout-sessions';
import { createMerchantRepository } from '../../db/merchants';
import { insertClaim } from '../../db/claims';
import { checkKennitala } from '../../domain/kennitala';
import { claimDatesFor, claimTermsRuleOf } from '../../domain/checkout-claims';
import { claimsEnabled } from '../merchant/onboarding';
import type { PayInput, PayOutcome } from './inputs';
import type { CheckoutCompletion } from './completion';

/** The buyer pays a session with a krafa in their online bank (decision 0063). */
export function createClaimPayment(deps: {
  knex: Knex;
  completion: CheckoutCompletion;
  /**
   * Issues pending claims now (a claim batch named `batch`) instead of at the next scheduled batch;
   * unset or failing: the scheduled batch issues them (decision 0063).
   */
  issueClaims?: ((livemode: boolean, batch: string) => Promise<void>) | undefined;
}) {
  const sessions = createCheckoutSessionRepository(deps.knex);
  const merchants = createMerchantRepository(deps.knex);
  const { readFields, answersPatch, claimCompletion, complete, afterCommit } = deps.completion;

  /**
   * Whether the session may be paid with a krafa: a one-off payment (nothing saved for later) of a
   * merchant with `payments.bank_claim` enabled and a kennitala to issue claims under.
   */
  async function claimsOffered(s: CheckoutSessionRow, trx: Knex | Knex.Transaction = deps.knex) {
    if (s.mode !== 'payment' || s.save_payment_method || (s.amount <= 0 && !s.allow_custom_amount))
      return null;
    const merchant = await merchants.findById(s.merchant_id, trx);
    if (!claimsEnabled(merchant, s.livemode)) return null;
    return {
      kennitala: merchant.kennitala,
      bankAccount: merchant.bank_account,
      terms: claimTermsRuleOf(merchant.claim_terms),
    };
  }

  return {
    claimsOffered,

    /**
     * The buyer pays with a krafa (decision 0063): the session completes `awaiting_claim` and a
     * pending claim for its amount, due per CHECKOUT_CLAIM_TERMS, is linked to it; the claim batch
     * started after commit issues it (`claim.created`), and the claim payments sync marks it paid.
     */
    async payByClaim(
      sessionId: string,
      input: {
        fields: Record<string, string>;
        customAmount?: string | undefined;
        kennitala: string;
        business?: PayInput['business'];
      },
    ): Promise<PayOutcome> {
      const wake: string[] = [];
      const result = await deps.knex.transaction(async (trx): Promise<PayOutcome> => {
        const s = await sessions.lockPublic(sessionId, trx);
        if (!s || s.status !== 'open') return { kind: 'closed', session: s! };
        const scope = { merchantId: s.merchant_id, livemode: s.livemode };
        const claimant = await claimsOffered(s, trx);
        if (!claimant) return { kind: 'invalid', errors: { kennitala: 'unavailable' } };
        const read = readFields(s, { ...input, returnUrl: '' });
        const kt = checkKennitala(input.kennitala.trim());
        if (!kt.ok) read.errors.kennitala = 'invalid';
        if (!kt.ok || Object.keys(read.errors).length > 0) return { kind: 'invalid', errors: read.errors };
        const session = await sessions.update(s.id, answersPatch(s, read), trx);
        const refused = await claimCompletion(scope, session, trx);
        if (refused) return { kind: 'declined', message: refused, session };
        // Real time, not a customer's test clock: such a claim is not clock-bound (decision 0064).
        const dates = claimDatesFor(new Date().toISOString().slice(0, 10), claimant.terms);
        await insertClaim(trx, {
          merchantId: s.merchant_id,
          livemode: s.livemode,
          claimantKennitala: claimant.kennitala,
          bankAccount: claimant.bankAccount,
          customerId: session.customer_id,
          payerKennitala: kt.kennitala.value,
          amount: session.amount,
          ...dates,
          description:
            session.items
              .map((i) => i.description)
              .join(', ')
              .slice(0, 200) || null,
          metadata: { checkout_session: session.id },
          checkoutSessionId: session.id,
        });
        const done = await complete(scope, session, 'awaiting_claim', null, null, trx, wake, []);
        return { kind: 'complete', session: done };
      });
      await afterCommit(wake);
      if (result.kind === 'complete' && deps.issueClaims)
        await deps.issueClaims(result.session.livemode, `checkout-${result.session.id}`);
      return result;
    },
  };
}
