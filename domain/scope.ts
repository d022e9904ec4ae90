/**
 * The tenancy of every query: one merchant in one environment. An API key selects it, and every
 * repository method takes it, so no query can forget to filter by merchant and mode.
 */
export interface Scope {
  readonly merchantId: string;
  readonly livemode: boolean;
}

/** The environment name used in webhooks and event bodies (spec §6.2). */
export function environmentOf(scope: Pick<Scope, 'livemode'>): 'live' | 'test' {
  return scope.livemode ? 'live' : 'test';
}
