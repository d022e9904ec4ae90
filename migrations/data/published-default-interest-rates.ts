/**
 * SEED — the statutory default-interest rate (dráttarvextir) the migration loads into each
 * environment's rate table (decision 0244). Not a fixture: every row is a rate the Central Bank of
 * Iceland published in a monthly notice ("Tilkynning um dráttarvexti og vexti af peningakröfum"),
 * with the notice named. Only the latest notice found is loaded: the table holds a rate until the
 * next entry, so loading the older single months found (decision 0209 lists them) would charge a
 * wrong rate for every unpublished month between them. The operator enters each new month's notice
 * through the operator API (`POST /v1/operator/default_interest_rates`).
 */
export const PUBLISHED_DEFAULT_INTEREST_RATES: readonly {
  from: string;
  consumer: number;
  business: number;
  source: string;
}[] = [
  {
    from: '2025-05-01',
    consumer: 15.5,
    business: 15.5,
    source: 'Seðlabanki Íslands, tilkynning um dráttarvexti nr. 04/2025 (1.–31. maí 2025)',
  },
];
