import { Router, type Response } from 'express';
import { z } from 'zod';
import type { OperationDoc } from '../openapi';
import type { PosSetupService } from '../../services/pos/pos-setup';
import type { TillService } from '../../services/pos/till';
import type { SaleReceipts } from '../../services/pos/sale-receipt';
import type { PosActor } from '../../services/pos/access';
import {
  PosDeviceSchema,
  PosDrawerEventSchema,
  PosPairingCodeSchema,
  PosReceiptSchema,
  PosRefundSchema,
  PosRegisterSchema,
  PosSaleSchema,
  PosShiftSchema,
  PosStaffSchema,
  PosTerminalAnnouncementSchema,
  PosTerminalSchema,
  PosXReportSchema,
  PosZReportSchema,
} from '../../services/pos/pos-objects';
import { PIN_PATTERN } from '../../domain/pos';
import { createRoutes } from '../route';
import { listOf, listResponse } from '../list';
import { parseInput, zBool, zInt } from '../validation';
import { pageOptions, pageQuery, zAmount, zId, zLine } from '../fields';
import { zVatRate } from './products';
import { context } from '../../stack/request-context';

const tag = 'Point of Sale';
const zPin = z.string().regex(PIN_PATTERN, 'must be 4 to 8 digits');
const zCode = z
  .string()
  .min(4)
  .max(32)
  .regex(/^[A-Za-z0-9 -]+$/, 'must be the code as shown');
const zStaff = zId
  .optional()
  .describe('The staff member acting; required with an API key, taken from the signed-in person on a till');

const SaleLine = z.union([
  z
    .object({
      product: zId,
      variant: zId.optional(),
      quantity: zInt().pipe(z.number().min(1).max(1000)),
      discount_amount: zAmount().optional().describe('VAT-inclusive, off the whole line'),
    })
    .strict(),
  z
    .object({
      description: zLine(255).min(1),
      unit_amount: zAmount().describe('VAT-inclusive ISK'),
      vat_rate: zVatRate,
      quantity: zInt().pipe(z.number().min(1).max(1000)),
      discount_amount: zAmount().optional(),
    })
    .strict(),
]);
const SalePayment = z.union([
  z
    .object({
      method: z.literal('cash'),
      amount: zAmount().pipe(z.number().min(1)),
      tendered: zAmount().optional().describe('Cash handed over; the change due is the difference'),
    })
    .strict(),
  z.object({ method: z.literal('card'), amount: zAmount().pipe(z.number().min(1)) }).strict(),
]);
const CreateSale = z
  .object({
    lines: z.array(SaleLine).min(1).max(100),
    payments: z
      .array(SalePayment)
      .min(1)
      .max(10)
      .describe('Parts that sum to the sale: cash, card (on the paired terminal), or both'),
    email: z.string().email().max(254).optional().describe('Where the receipt is sent'),
    staff: zStaff,
  })
  .strict();

const RegisterQuery = pageQuery.extend({ register: zId.optional() }).strict();

/**
 * The point of sale (issue 19) under /v1/pos/…: set-up with the merchant's API key (registers,
 * staff, pairing, terminals), and till actions with a paired device's credential or an API key.
 * Every route answers 403 `pos_not_enabled` while features.pos is false (spec §7).
 */
export function posRouter(
  deps: { setup: PosSetupService; till: TillService; receipts: SaleReceipts },
  docs: OperationDoc[],
): Router {
  const router = Router();
  const route = createRoutes(router, docs);
  const { setup, till } = deps;
  const actor = (res: Response): PosActor => {
    const d = context(res).posDevice;
    return d ? { kind: 'device', deviceId: d.id, registerId: d.registerId } : { kind: 'api_key' };
  };
  const list = <T>(url: string, page: { data: T[]; hasMore: boolean }) =>
    listResponse(url, page.data, page.hasMore);

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
    path: '/v1/pos/registers/:id/shift',
    summary: 'The register’s open drawer shift (409 pos_no_open_shift when none is open)',
    tag,
    response: PosShiftSchema,
    errors: [403, 409],
    handler: ({ params, scope, res }) => till.currentShift(scope, actor(res), params.id!),
  });
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/shift/open',
    summary: 'Open a drawer shift with a float',
    tag,
    body: z.object({ opening_float: zAmount(), staff: zStaff }).strict(),
    response: PosShiftSchema,
    errors: [403],
    handler: ({ params, body, scope, res }) => till.openShift(scope, actor(res), params.id!, body),
  });
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/shift/close',
    summary: 'Close the drawer shift with the cash counted; expected against counted is kept',
    tag,
    body: z.object({ counted_cash: zAmount(), staff: zStaff }).strict(),
    response: PosShiftSchema,
    errors: [403],
    handler: ({ params, body, scope, res }) => till.closeShift(scope, actor(res), params.id!, body),
  });
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/drawer_events',
    summary: 'Paid in, paid out (a manager), or the drawer opened without a sale',
    tag,
    body: z
      .object({
        kind: z.enum(['paid_in', 'paid_out', 'no_sale']),
        amount: zAmount().optional(),
        reason: zLine(255).optional(),
        staff: zStaff,
      })
      .strict(),
    response: PosDrawerEventSchema,
    errors: [403],
    handler: ({ params, body, scope, res }) => till.drawerEvent(scope, actor(res), params.id!, body),
  });
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/sales',
    summary:
      'Make a sale: lines with VAT, paid by cash (change due), by card on the paired terminal, or split',
    tag,
    body: CreateSale,
    response: PosSaleSchema,
    errors: [402, 403, 503],
    handler: ({ params, body, scope, res }) => till.createSale(scope, actor(res), params.id!, body),
  });
  route({
    method: 'get',
    path: '/v1/pos/registers/:id/x_report',
    summary: 'The X-report: running figures since the last Z-report; nothing is closed',
    tag,
    response: PosXReportSchema,
    errors: [403],
    handler: ({ params, scope, res }) => till.xReport(scope, actor(res), params.id!),
  });
  route({
    method: 'post',
    path: '/v1/pos/registers/:id/z_reports',
    summary: 'Make the Z-report (a manager): closes the register’s day; immutable once made',
    tag,
    body: z.object({ staff: zStaff }).strict(),
    response: PosZReportSchema,
    errors: [403],
    handler: ({ params, body, scope, res }) => till.makeZReport(scope, actor(res), params.id!, body),
  });

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

  route({
    method: 'get',
    path: '/v1/pos/sales',
    summary: 'List sales, newest first',
    tag,
    query: RegisterQuery,
    response: listOf(PosSaleSchema),
    errors: [403],
    handler: async ({ query, scope, res }) =>
      list(
        '/v1/pos/sales',
        await till.listSales(scope, actor(res), { ...pageOptions(query), registerId: query.register }),
      ),
  });
  route({
    method: 'get',
    path: '/v1/pos/sales/:id',
    summary: 'Retrieve a sale',
    tag,
    response: PosSaleSchema,
    errors: [403],
    handler: ({ params, scope, res }) => till.retrieveSale(scope, actor(res), params.id!),
  });
  route({
    method: 'get',
    path: '/v1/pos/sales/:id/receipt',
    summary: 'The sale’s receipt: the printable 80 mm page and the email body, VAT per rate',
    tag,
    query: z.object({ locale: z.enum(['is', 'en']).default('is') }).strict(),
    response: PosReceiptSchema,
    errors: [403],
    handler: ({ params, query, scope, res }) =>
      deps.receipts.receipt(scope, actor(res), params.id!, query.locale),
  });
  route({
    method: 'post',
    path: '/v1/pos/sales/:id/refunds',
    summary: 'Refund a sale (a manager), to cash from the drawer or to the card it was paid with',
    tag,
    body: z
      .object({
        method: z.enum(['cash', 'card']),
        amount: zAmount().pipe(z.number().min(1)).optional(),
        staff: zStaff,
      })
      .strict(),
    response: PosRefundSchema,
    errors: [403],
    handler: ({ params, body, scope, res, req }) =>
      till.refundSale(scope, actor(res), params.id!, body, req.get('idempotency-key') ?? undefined),
  });

  route({
    method: 'get',
    path: '/v1/pos/z_reports',
    summary: 'List Z-reports, newest first',
    tag,
    query: RegisterQuery,
    response: listOf(PosZReportSchema),
    errors: [403],
    handler: async ({ query, scope, res }) =>
      list(
        '/v1/pos/z_reports',
        await till.listZReports(scope, actor(res), { ...pageOptions(query), registerId: query.register }),
      ),
  });
  route({
    method: 'get',
    path: '/v1/pos/z_reports/:id',
    summary: 'Retrieve a Z-report (they cannot be changed or deleted)',
    tag,
    response: PosZReportSchema,
    errors: [403],
    handler: ({ params, scope, res }) => till.retrieveZReport(scope, actor(res), params.id!),
  });
  return router;
}

/** The two POS routes that need no key: a till pairing itself, and a terminal announcing its code. */
export function posPublicRouter(deps: { setup: PosSetupService }, docs: OperationDoc[]): Router {
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
