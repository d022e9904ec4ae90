import { Router } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../../openapi';
import type { PosSetupService } from '../../../services/pos/pos-setup';
import { PosTerminalAnnouncementSchema, PosTerminalSchema } from '../../../services/pos/terminal-object';
import { createRoutes } from '../../route';
import { listOf } from '../../list';
import { pageOptions, zId, zLine } from '../../fields';
import { actor, list, RegisterQuery, tag, zCode } from './shared';
import { parseInput } from '../../validation';
import { context } from '../../../stack/request-context';

/**
 * Card terminals paired to a register by the registration code they show (decision 0131). A
 * terminal announcing its code needs no key: posTerminalsPublicRouter.
 */
export function posTerminalsRouter(deps: { setup: PosSetupService }, docs: OperationDoc[]): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { setup } = deps;
  route({
    method: 'post',
    path: '/v1/pos/terminals',
    summary: 'Pair a card terminal to a register by the registration code it shows',
    tag,
    body: z
      .object({ register: zId, registration_code: zCode, label: zLine(100).nullable().optional() })
      .strict(),
    response: PosTerminalSchema,
    errors: [403, 503],
    handler: ({ body, scope, res }) => setup.pairTerminal(scope, actor(res), body),
  });
  route({
    method: 'get',
    path: '/v1/pos/terminals',
    summary: 'List paired terminals, newest first',
    tag,
    query: RegisterQuery,
    response: listOf(PosTerminalSchema),
    errors: [403],
    handler: async ({ query, scope }) =>
      list(
        '/v1/pos/terminals',
        await setup.listTerminals(scope, { ...pageOptions(query), registerId: query.register }),
      ),
  });
  route({
    method: 'get',
    path: '/v1/pos/terminals/:id',
    summary: 'Retrieve a terminal',
    tag,
    response: PosTerminalSchema,
    errors: [403],
    handler: ({ params, scope }) => setup.retrieveTerminal(scope, params.id!),
  });
  return router;
}

/** A terminal announcing the registration code it shows: no key, it belongs to no merchant yet. */
export function posTerminalsPublicRouter(deps: { setup: PosSetupService }, docs: OperationDoc[]): Router {
  const router = Router();
  const announceBody = z
    .object({
      registration_code: zCode,
      url: z
        .string()
        .url()
        .max(2048)
        .regex(/^https?:\/\//, 'must be an http(s) URL'),
      device_type: z.enum(['simulated_reader', 'tap_to_pay']).default('simulated_reader'),
    })
    .strict();
  const announceDoc: OperationDoc = {
    method: 'post',
    path: '/v1/pos/terminal_announcements',
    summary: 'A terminal announces the registration code it shows and where the register reaches it',
    tag,
    auth: false,
    body: announceBody,
    response: PosTerminalAnnouncementSchema,
    status: 200,
    errors: [429],
  };
  docs.push(announceDoc);
  router.post(announceDoc.path, async (req, res) => {
    context(res).route = announceDoc.path;
    context(res).declared = announceDoc;
    const body = parseInput(announceBody, req.body, 'body');
    res.json(await deps.setup.announceTerminal(body));
  });
  return router;
}
