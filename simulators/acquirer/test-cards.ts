/** How a test card behaves at the simulated acquirer (docs/guides/testing.md, "Test cards"). */
export type Behaviour =
  | 'success'
  | 'generic_decline'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  | 'processing_error'
  | 'three_d_secure'
  | 'dispute'
  | 'dispute_past_due';

/** The documented test cards; any other valid number succeeds. */
export const TEST_CARDS: Record<string, Behaviour> = {
  '4242424242424242': 'success',
  '5555555555554444': 'success',
  '4000000000000002': 'generic_decline',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000119': 'processing_error',
  '4000000000003220': 'three_d_secure',
  // Captured, then disputed as fraudulent by the cardholder's bank (Stripe's number): 7 days to answer.
  '4000000000000259': 'dispute',
  // The same, with its evidence deadline already passed when the dispute opens.
  '4000000000002685': 'dispute_past_due',
};

/** Behaviours whose capture the cardholder's bank disputes (decision 0155). */
export const DISPUTED: readonly Behaviour[] = ['dispute', 'dispute_past_due'];

/** Days a merchant has to answer a dispute of the `dispute` card. */
export const DISPUTE_RESPONSE_DAYS = 7;

/** Behaviours whose authorization is declined, with the decline code of the same name. */
export const DECLINES: readonly Behaviour[] = [
  'generic_decline',
  'insufficient_funds',
  'expired_card',
  'incorrect_cvc',
];

/** Tokens carry only the behaviour and a random part, never the number (decision 0035). */
export const TOKEN_PATTERN = /^tok_([a-z_]+)_[0-9A-Za-z]{20}$/;

export function luhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let d = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}
