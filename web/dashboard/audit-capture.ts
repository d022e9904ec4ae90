import type { RequestHandler } from 'express';
import { context } from '../../stack/request-context';
import { withAuditDraft } from '../../stack/audit-context';
import { recordedAddress } from '../../domain/client-address';
import { webSession } from '../session';
import { merchantView } from './frame';
import type { WebContext } from './context';

const ID_SEGMENT = /\/[a-z]{2,6}_[0-9A-Za-z]{8,}/g;

/**
 * Every form a merchant member posts leaves one audit entry (decision 0227), as the API's writes do:
 * the member, the address, the time, the page's object and the fields sent, secrets and the CSRF
 * token removed. The entry rides on the statements that change data; a post that succeeded (below
 * 400) and ran none has it written after. A refused form leaves none.
 */
export function auditFormPosts(ctx: WebContext): RequestHandler {
  return (req, res, next) => {
    const session = webSession(res);
    if (req.method !== 'POST' || session?.user.kind !== 'merchant' || !session.user.merchant_id)
      return next();
    const view = merchantView(req, res);
    const path = req.originalUrl.split('?')[0]!;
    const ids = path.match(ID_SEGMENT);
    const draft = ctx.services.auditLog.draft({
      merchantId: view.scope.merchantId,
      livemode: view.scope.livemode,
      actorType: 'member',
      actorId: session.user.id,
      clientAddress: recordedAddress(req.ip ?? req.socket.remoteAddress),
      requestId: context(res).requestId,
      action: `POST ${path.replace(ID_SEGMENT, '/:id')}`,
      body: req.body,
      pathObjectId: ids ? ids[ids.length - 1]!.slice(1) : null,
    });
    res.on('finish', () => {
      if (res.statusCode >= 400) return;
      const object = { type: null, id: ids ? ids[ids.length - 1]!.slice(1) : null };
      ctx.services.auditLog
        .finish(draft, object)
        .catch((err: unknown) => ctx.log.error({ err, draft: draft.id }, 'audit entry not written'));
    });
    withAuditDraft(draft, () => next());
  };
}
