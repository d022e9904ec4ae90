import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import type { PosRepositories } from '../../db/pos-repositories';
import type { ProductRepository } from '../../db/products';
import type { VariantRepository } from '../../db/product-variants';
import type { PriceRepository } from '../../db/prices';
import type { PosTerminal } from '../../adapters/terminal/pos-terminal';
import type { PaymentService } from '../payments/card-payments';
import type { RefundService } from '../payments/refunds';
import type { WebhookDispatcher } from '../../engine/webhook-dispatch';
import { ConflictError } from '../../domain/errors';
import { findOr404 } from '../lookup';
import { findRegister } from './register-lookup';
import type { PosAccess, PosActor } from './access';

/** What the till's operations are made of; every repository comes in here, none is built inside. */
export interface TillDeps {
  knex: Knex;
  pos: PosRepositories;
  /** The catalogue a sale is priced from. */
  catalog: { products: ProductRepository; variants: VariantRepository; prices: PriceRepository };
  access: PosAccess;
  terminal: PosTerminal;
  payments: PaymentService;
  refunds: RefundService;
  dispatcher: WebhookDispatcher;
}

/** Most till actions need an open shift: the drawer's cash is counted per shift (decision 0129). */
export const noShift = () =>
  new ConflictError('The register has no open shift; open one with a float first', 'pos_no_open_shift');

/** A register or sale by id, 404 (naming the other mode) if absent, 403 if another till's. */
export function createTillLookups(deps: Pick<TillDeps, 'pos' | 'access'>) {
  const { pos, access } = deps;
  return {
    registerOr404: async (scope: Scope, actor: PosActor, id: string) => {
      const row = await findRegister(pos, scope, id);
      access.assertRegister(actor, row.id);
      return row;
    },
    saleOr404: async (scope: Scope, actor: PosActor, id: string) => {
      const row = await findOr404(
        'pos.sale',
        scope,
        id,
        () => pos.sales.find(scope, id),
        () => pos.sales.otherMode(scope, id),
      );
      access.assertRegister(actor, row.register_id);
      return row;
    },
  };
}
