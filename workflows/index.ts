export { webhookChannel, deliveriesDueSignal, type WebhookChannelInput } from './webhook-channel';
export { webhookRelay, type WebhookRelayInput } from './webhook-relay';
export { maintenance } from './maintenance';
export { checkoutExpiry } from './checkout-expiry';
