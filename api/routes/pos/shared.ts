import type { Response } from 'express';
import { z } from 'zod';
import type { PosActor } from '../../../services/pos/access';
import { PIN_PATTERN } from '../../../domain/pos';
import { listResponse } from '../../list';
import { pageQuery, zId } from '../../fields';
import { context } from '../../../stack/request-context';

// What the POS routers share: their tag in the document, the fields several of them take, and who
// is calling (decision 0126).

export const tag = 'Point of Sale';
export const zPin = z.string().regex(PIN_PATTERN, 'must be 4 to 8 digits');
export const zCode = z
  .string()
  .min(4)
  .max(32)
  .regex(/^[A-Za-z0-9 -]+$/, 'must be the code as shown');
export const zStaff = zId
  .optional()
  .describe('The staff member acting; required with an API key, taken from the signed-in person on a till');

export const RegisterQuery = pageQuery.extend({ register: zId.optional() }).strict();

/** The caller: a paired till's device credential (its own register only), or the merchant's API key. */
export const actor = (res: Response): PosActor => {
  const d = context(res).posDevice;
  return d ? { kind: 'device', deviceId: d.id, registerId: d.registerId } : { kind: 'api_key' };
};

export const list = <T>(url: string, page: { data: T[]; hasMore: boolean }) =>
  listResponse(url, page.data, page.hasMore);
