/**
 * What an audit entry keeps of a change (decision 0227): the fields asked for, with anything that
 * opens something removed. A key whose name says secret, password, token, code, seed, PIN, card
 * number or CVC is kept as `[redacted]`, at any depth; long strings are cut; the whole is bounded.
 */
const SECRET_NAME =
  /pass(word|phrase)?|secret|token|csrf|seed|otp|recovery|(^|_)code$|(^|_)pin$|cvc|cvv|^number$|card_?number|api_?key|credential|authorization/i;
const MAX_STRING = 200;
const MAX_KEYS = 50;
const MAX_DEPTH = 4;

function clean(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…` : value;
  if (depth >= MAX_DEPTH) return '[…]';
  if (Array.isArray(value)) return value.slice(0, MAX_KEYS).map((v) => clean(v, depth + 1));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>).slice(0, MAX_KEYS)) {
      // A string that is itself a live or test key is never kept, whatever its field is called.
      out[k] =
        SECRET_NAME.test(k) || (typeof v === 'string' && /^(sk|rk)_(live|test)_/.test(v))
          ? '[redacted]'
          : clean(v, depth + 1);
    }
    return out;
  }
  return typeof value === 'bigint' ? value.toString() : null;
}

/** The change as an audit entry keeps it. */
export function redactChanges(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  return clean(body, 0) as Record<string, unknown>;
}
