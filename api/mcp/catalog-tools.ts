import { ProductSchema } from '../../services/catalog/product-object';
import { PriceSchema } from '../../services/catalog/price-object';
import { CreateProduct, UpdateProduct } from '../routes/products';
import { CreatePrice, UpdatePrice } from '../routes/prices';
import type { McpDeps } from './services';
import { idInput, type ToolDef } from './tool';
import { createTool, writeTool } from './write-tool';

/** A change of one object that an idempotency key makes safe to retry; it destroys nothing. */
const CHANGES = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** The catalog's writes: products and prices, as `/v1/products` and `/v1/prices` make them. */
export function catalogTools(deps: McpDeps): ToolDef[] {
  return [
    createTool(deps, {
      name: 'create_product',
      title: 'Create a product',
      description:
        'Create a product (prod_…): what the merchant sells, with its VAT rate (vat_rate 0, 11 or 24; default 24, included in every price). default_price_data { unit_amount (whole ISK, VAT included), recurring { interval week|month|year, interval_count } } also creates its default price; without recurring the price is one-time. Moves no money. Look first with list_products to avoid a duplicate.',
      input: CreateProduct,
      output: ProductSchema,
      run: (services, ctx, body) => services.products.create(ctx.scope, body),
    }),
    writeTool(deps, {
      name: 'update_product',
      title: 'Update a product',
      description:
        'Change a product (prod_…): name, description, images, active (false archives it: no new sales), vat_rate, metadata, default_price (an active price of the product). default_price_data makes a new default price and archives the old default. Existing subscriptions keep their prices. Moves no money.',
      input: idInput('product', 'prod').extend(UpdateProduct.shape),
      output: ProductSchema,
      annotations: CHANGES,
      dryRunNote: 'Nothing was changed; this is the product as the call would leave it.',
      run: (services, ctx, { id, ...body }) => services.products.update(ctx.scope, id, body),
    }),
    createTool(deps, {
      name: 'create_price',
      title: 'Create a price',
      description:
        "Create a price (price_…) for a product: unit_amount in whole ISK, VAT included (1000 = 1.000 kr.). With recurring { interval week|month|year, interval_count } it is a subscription price for create_subscription; without, a one-time price for checkouts and links. A price's amount never changes: to charge another amount, create a new price (or update_price with unit_amount). Moves no money.",
      input: CreatePrice,
      output: PriceSchema,
      run: (services, ctx, body) => services.prices.create(ctx.scope, body),
    }),
    writeTool(deps, {
      name: 'update_price',
      title: 'Update a price',
      description:
        'Change a price (price_…): nickname, active (false: no new checkouts or subscriptions with it) or metadata, in place. A new unit_amount (whole ISK) does not change this price: it creates a new price that replaces it and answers the new one, and archives this one; subscriptions already on it keep paying its amount. Moves no money.',
      input: idInput('price', 'price').extend(UpdatePrice.shape),
      output: PriceSchema,
      annotations: CHANGES,
      dryRunNote:
        'Nothing was changed; this is the price as the call would leave it (a new price for a new unit_amount, its id not kept).',
      run: (services, ctx, { id, ...body }) => services.prices.update(ctx.scope, id, body),
    }),
  ];
}
