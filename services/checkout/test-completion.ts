import type { Scope } from '../../domain/scope';
import { InvalidRequestError } from '../../domain/errors';
import type { PayInput, PayOutcome } from './inputs';

/** The card a test completion pays with when none is given: the simulated acquirer's plain success. */
const SUCCESS_CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };

/**
 * Test helper: pays an open session of the caller's test mode by card, through the same payment as
 * the hosted page (so the same events, captures and completion), for tools like `skil trigger` that
 * have no browser. A live key is refused: live sessions are paid by buyers only.
 */
type Prefilled = {
  id: string;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
};

export function createTestCompletion<S extends Prefilled>(deps: {
  retrieve: (scope: Scope, id: string) => Promise<S>;
  pay: (sessionId: string, input: PayInput) => Promise<PayOutcome>;
  publicBaseUrl: string;
}) {
  return async function completeForTest(
    scope: Scope,
    sessionId: string,
    input: { card?: PayInput['card']; fields?: Record<string, string> },
  ): Promise<S> {
    if (scope.livemode) {
      throw new InvalidRequestError('Test helpers work in test mode only; use a test key', {
        code: 'livemode_mismatch',
      });
    }
    const session = await deps.retrieve(scope, sessionId);
    // The contact fields a buyer would type, prefilled as the hosted page prefills them; a
    // merchant's own required fields must be answered in `fields`.
    const contact = {
      name: session.customer_name ?? 'Test Buyer',
      email: session.customer_email ?? 'buyer@example.com',
      phone: session.customer_phone ?? '5812345',
    };
    const outcome = await deps.pay(session.id, {
      fields: { ...contact, ...input.fields },
      card: input.card ?? SUCCESS_CARD,
      returnUrl: `${deps.publicBaseUrl}/checkout/${session.id}`,
    });
    switch (outcome.kind) {
      case 'complete':
        return deps.retrieve(scope, session.id);
      case 'closed':
        throw new InvalidRequestError('The checkout session is not open', {
          code: 'checkout_session_not_open',
        });
      case 'declined':
        throw new InvalidRequestError(outcome.message, { code: 'card_declined', param: 'card' });
      case 'action':
        throw new InvalidRequestError(
          'This card asks for a 3-D Secure challenge, which needs the hosted page; use another test card',
          { code: 'authentication_required', param: 'card' },
        );
      case 'invalid': {
        const [field, problem] = Object.entries(outcome.errors)[0]!;
        throw new InvalidRequestError(`${field}: ${problem}`, {
          param: field === 'card' ? 'card' : `fields.${field}`,
        });
      }
    }
  };
}
