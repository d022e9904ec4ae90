import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../../openapi';
import type { PosSetupService } from '../../../services/pos/pos-setup';
import { PosRegisterSchema } from '../../../services/pos/register-object';
import { createRoutes } from '../../route';
import { listOf } from '../../list';
import { pageOptions, pageQuery, zLine } from '../../fields';
import { actor, list, tag } from './shared';

/**
 * Registers: the tills of a merchant, each at a location; set up with the merchant's API key.
 */
export function posRegistersRouter(deps: { setup: PosSetupService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { setup } = deps;
  route({
    method: 'post',
    path: '/v1/pos/registers',
    summary: 'Create a register (a till) at a location',
    tag,
    body: z.object({ name: zLine(100).min(1), location: zLine(255).nullable().optional() }).strict(),
    response: PosRegisterSchema,
    errors: [403],
    handler: ({ body, scope, res }) => setup.createRegister(scope, actor(res), body),
  });
  route({
    method: 'get',
    path: '/v1/pos/registers',
    summary: 'List registers, newest first',
    tag,
    query: pageQuery,
    response: listOf(PosRegisterSchema),
    errors: [403],
    handler: async ({ query, scope }) =>
      list('/v1/pos/registers', await setup.listRegisters(scope, pageOptions(query))),
  });
  route({
    method: 'get',
    path: '/v1/pos/registers/:id',
    summary: 'Retrieve a register',
    tag,
    response: PosRegisterSchema,
    errors: [403],
    handler: ({ params, scope, res }) => setup.retrieveRegister(scope, actor(res), params.id!),
  });
  return router;
}
