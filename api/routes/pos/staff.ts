import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../../openapi';
import type { PosSetupService } from '../../../services/pos/pos-setup';
import { PosStaffSchema } from '../../../services/pos/staff-object';
import { createRoutes } from '../../route';
import { listOf } from '../../list';
import { zBool } from '../../validation';
import { pageOptions, pageQuery, zLine } from '../../fields';
import { actor, list, tag, zPin } from './shared';

/**
 * Staff at the tills, each with their own PIN and a role (decision 0127).
 */
export function posStaffRouter(deps: { setup: PosSetupService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { setup } = deps;
  route({
    method: 'post',
    path: '/v1/pos/staff',
    summary: 'Add a staff member with their own PIN (no two share one) and a role',
    tag,
    body: z
      .object({ name: zLine(100).min(1), role: z.enum(['cashier', 'manager']).default('cashier'), pin: zPin })
      .strict(),
    response: PosStaffSchema,
    errors: [403],
    handler: ({ body, scope, res }) => setup.createStaff(scope, actor(res), body),
  });
  route({
    method: 'get',
    path: '/v1/pos/staff',
    summary: 'List staff, newest first',
    tag,
    query: pageQuery,
    response: listOf(PosStaffSchema),
    errors: [403],
    handler: async ({ query, scope }) =>
      list('/v1/pos/staff', await setup.listStaff(scope, pageOptions(query))),
  });
  route({
    method: 'get',
    path: '/v1/pos/staff/:id',
    summary: 'Retrieve a staff member',
    tag,
    response: PosStaffSchema,
    errors: [403],
    handler: ({ params, scope }) => setup.retrieveStaff(scope, params.id!),
  });
  route({
    method: 'post',
    path: '/v1/pos/staff/:id',
    summary: 'Update a staff member: name, role, PIN, active, or unlock after wrong PINs',
    tag,
    body: z
      .object({
        name: zLine(100).min(1).optional(),
        role: z.enum(['cashier', 'manager']).optional(),
        pin: zPin.optional(),
        active: zBool().optional(),
        unlock: zBool().optional(),
      })
      .strict(),
    response: PosStaffSchema,
    errors: [403],
    handler: ({ params, body, scope, res }) => setup.updateStaff(scope, actor(res), params.id!, body),
  });
  return router;
}
