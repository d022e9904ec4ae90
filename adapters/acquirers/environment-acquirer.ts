import type { CardAcquirer, LiveCardSupport, Wallet } from './card-acquirer';

/** A real acquirer's adapter for live mode, and how its ids are told apart from test ones. */
export interface LiveAcquirer {
  client: CardAcquirer;
  /** Every id the live adapter hands out (tokens, authorizations, refunds) starts with this. */
  idPrefix: string;
  wallets: readonly Wallet[];
}

/**
 * One `CardAcquirer` over two environments (decision 0165): test-mode cards go to the simulated
 * acquirer, live-mode cards to a real acquirer's adapter. A card is routed by its environment when
 * tokenized; after that every call names an id the live adapter made (a prefix of its own), so
 * authorize, capture, void and refund follow the card without each caller passing its mode.
 * Dispute notifications are the simulated acquirer's (the live one publishes none).
 */
export function createEnvironmentAcquirer(test: CardAcquirer, live: LiveAcquirer): CardAcquirer {
  const isLive = (id: string) => id.startsWith(live.idPrefix);
  const by = (id: string) => (isLive(id) ? live.client : test);
  const support: LiveCardSupport = { wallets: live.wallets };
  return {
    live: support,
    tokenize: (req) => (req.livemode ? live.client : test).tokenize(req),
    authorize: (req) => by(req.token).authorize(req),
    retrieve: (id) => by(id).retrieve(id),
    capture: (req) => by(req.authorization).capture(req),
    void: (id, key) => by(id).void(id, key),
    refund: (req) => by(req.authorization).refund(req),
    submitDisputeEvidence: (req) => by(req.dispute).submitDisputeEvidence(req),
    acceptDispute: (id, key) => by(id).acceptDispute(id, key),
    parseNotification: (body, signature) => test.parseNotification(body, signature),
  };
}
