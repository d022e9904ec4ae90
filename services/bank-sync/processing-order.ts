/**
 * Notifications before statements, then by name: a camt.053 lump sum is matched against the
 * camt.054 of the same day, so that should be stored first.
 */
export function processingOrder(names: string[]): string[] {
  const rank = (n: string) => (/camt\.?054/i.test(n) ? 0 : 1);
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
