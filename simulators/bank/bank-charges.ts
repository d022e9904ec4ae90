/**
 * The simulated bank's documented charge to the claimant (docs/guides/testing.md, "The simulated bank"; decision
 * 0113): a fixed amount per claim payment it collects, whole ISK, reported in the camt.054 detail's
 * `Chrgs` and billed apart from the collection account, so it changes no amount in the files. A
 * reversal carries none. The figure is chosen for tests, not any bank's price.
 */
export const CLAIM_PAYMENT_CHARGE = 120;
