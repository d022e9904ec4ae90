import type { Request, RequestHandler } from 'express';
import type { AuditLogService } from '../../services/audit/audit-log-service';
import type { Logger } from '../../stack/logger';
import { context } from '../../stack/request-context';
import { withAuditDraft } from '../../stack/audit-context';
import { recordedAddress } from '../../domain/client-address';

const WRITE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const ID_SEGMENT = /\/[a-z]{2,6}_[0-9A-Za-z]{8,}/g;

/** The method and the path with ids as `:id`: what the entry says was done. */
export function actionOf(req: Request): string {
  return `${req.method} ${req.originalUrl.split('?')[0]!.replace(ID_SEGMENT, '/:id')}`;
}

/** The last id in the path: what a write to `/v1/customers/cus_…` is about. */
export function pathObjectId(req: Request): string | null {
  const ids = req.originalUrl.split('?')[0]!.match(ID_SEGMENT);
  return ids ? ids[ids.length - 1]!.slice(1) : null;
}

/**
 * Every write through the API leaves one audit entry (decision 0227): the key that made it (its id,
 * never the key), the client's address as the trusted load balancer gave it, the time, the object,
 * and the parameters sent, secrets removed. The entry rides on the statements that change data, in
 * their transaction; a successful write that ran none has it written after. A refused write and a
 * replayed idempotent request changed nothing and leave none.
 */
export function auditWrites(audit: AuditLogService, log: Logger): RequestHandler {
  return (req, res, next) => {
    const ctx = context(res);
    if (!WRITE.has(req.method) || !ctx.scope || !ctx.apiKeyId) return next();
    const draft = audit.draft({
      merchantId: ctx.scope.merchantId,
      livemode: ctx.scope.livemode,
      actorType: ctx.posDevice ? 'pos_device' : 'api_key',
      actorId: ctx.apiKeyId,
      clientAddress: recordedAddress(req.ip ?? req.socket.remoteAddress),
      requestId: ctx.requestId,
      action: actionOf(req),
      body: req.body,
      pathObjectId: pathObjectId(req),
    });
    let answered: { type: string | null; id: string | null } | null = null;
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      const b = body as { object?: unknown; id?: unknown } | null;
      answered = {
        type: typeof b?.object === 'string' ? b.object : null,
        id: typeof b?.id === 'string' ? b.id : null,
      };
      return json(body);
    };
    res.on('finish', () => {
      if (res.statusCode < 200 || res.statusCode >= 300 || res.getHeader('idempotent-replayed')) return;
      const object = answered?.id ? answered : { type: answered?.type ?? null, id: pathObjectId(req) };
      audit
        .finish(draft, object)
        .catch((err: unknown) => log.error({ err, draft: draft.id }, 'audit entry not written'));
    });
    withAuditDraft(draft, () => next());
  };
}
