import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../../openapi';
import type { PosSetupService } from '../../../services/pos/pos-setup';
import { PosDeviceSchema, PosPairingCodeSchema } from '../../../services/pos/device-object';
import { createRoutes } from '../../route';
import { zId } from '../../fields';
import { actor, tag, zCode, zPin } from './shared';
import { parseInput } from '../../validation';
import { context } from '../../../stack/request-context';

/**
 * A till's pairing code, the paired till itself, and staff signing in and out on it with their PIN
 * (decisions 0126 and 0127). The till pairing itself needs no key: posDevicesPublicRouter.
 */
export function posDevicesRouter(deps: { setup: PosSetupService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { setup } = deps;
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/pairing_codes',
    summary: 'A single-use code (10 minutes) that pairs a till to the register: typed on the till at /pos',
    tag,
    response: PosPairingCodeSchema,
    errors: [403],
    handler: ({ params, scope, res }) => setup.createPairingCode(scope, actor(res), params.id!),
  });
  route({
    method: 'get',
    path: '/v1/pos/device',
    summary: 'The paired till calling (its device credential), with who is signed in',
    tag,
    response: PosDeviceSchema,
    errors: [403],
    handler: ({ scope, res }) => setup.currentDevice(scope, actor(res)),
  });
  route({
    method: 'post',
    path: '/v1/pos/sign_in',
    summary: 'A staff member signs in on the paired till with their PIN; locked after repeated wrong PINs',
    tag,
    body: z.object({ staff: zId, pin: zPin }).strict(),
    response: PosDeviceSchema,
    errors: [403],
    handler: ({ body, scope, res }) => setup.signIn(scope, actor(res), body),
  });
  route({
    method: 'post',
    path: '/v1/pos/sign_out',
    summary: 'Sign the staff member out of the till',
    tag,
    response: PosDeviceSchema,
    errors: [403],
    handler: ({ scope, res }) => setup.signOut(scope, actor(res)),
  });
  return router;
}

/** A till pairing itself to a register with a pairing code: no key, the code is the proof. */
export function posDevicesPublicRouter(deps: { setup: PosSetupService }, docs: OperationDoc[]): Router {
  const router = Router();
  const pairBody = z.object({ pairing_code: zCode }).strict();
  const pairDoc: OperationDoc = {
    method: 'post',
    path: '/v1/pos/devices',
    summary: 'A till pairs itself to a register with a pairing code; answers its device credential once',
    tag,
    auth: false,
    body: pairBody,
    response: PosDeviceSchema,
    status: 200,
    errors: [403, 429],
  };
  docs.push(pairDoc);
  router.post(pairDoc.path, async (req, res) => {
    context(res).route = pairDoc.path;
    context(res).declared = pairDoc;
    const body = parseInput(pairBody, req.body, 'body');
    res.setHeader('Cache-Control', 'no-store');
    res.json(await deps.setup.pairDevice(body));
  });
  return router;
}
