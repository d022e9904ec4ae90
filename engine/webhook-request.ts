import type { ChannelRow } from '../db/notification-channels';
import type { EventRecord } from '../domain/event-payload';
import { chatLine, toEventPayload } from '../domain/event-payload';
import { signWebhookBody } from '../domain/webhook-signature';
import { postWebhook, type PostResult } from '../adapters/http/webhook-sender';

/**
 * Sends one delivery of `event` to `channel`: the event payload (or a chat line), signed with the
 * channel's secret (spec §6.3), once. Never throws for a network or HTTP failure (see postWebhook).
 */
export async function sendDelivery(input: {
  channel: ChannelRow;
  event: EventRecord;
  deliveryId: string;
  timeoutMs: number;
  allowPrivateRanges: readonly string[];
  allowLoopback: boolean;
}): Promise<PostResult> {
  const { channel, event } = input;
  const payload = toEventPayload(event);
  const body = JSON.stringify(channel.type === 'chat' ? { text: chatLine(payload) } : payload);
  return postWebhook({
    url: channel.url,
    body,
    timeoutMs: input.timeoutMs,
    livemode: channel.livemode,
    allowPrivateRanges: input.allowPrivateRanges,
    allowLoopback: input.allowLoopback,
    headers: {
      'x-service-signature': signWebhookBody(channel.secret, body),
      // During a rotation's overlap the previous secret signs too, in a header of its own:
      // X-Service-Signature holds exactly one value (spec §6.3; decision 0112).
      ...(channel.previous_secret !== null &&
        channel.previous_secret_expires_at !== null &&
        channel.previous_secret_expires_at.getTime() > Date.now() && {
          'x-service-signature-previous': signWebhookBody(channel.previous_secret, body),
        }),
      'x-service-event': event.type,
      'x-service-delivery-id': input.deliveryId,
    },
  });
}
