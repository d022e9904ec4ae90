import { sharedTestStack, type TestStack, type TestMerchant } from '../helpers/stack';
import { createVariantRepository } from '../../db/product-variants';
import { createProductRepository } from '../../db/products';

let stack: TestStack;
let merchant: TestMerchant;

beforeAll(async () => {
  stack = await sharedTestStack();
  merchant = await stack.merchant('Catalog');
});
afterAll(async () => {
  await stack.stop();
});

const api = (path: string, init?: RequestInit & { json?: unknown }) =>
  stack.api(merchant.testKey, path, init);
const post = (path: string, json: unknown) => api(path, { method: 'POST', json });
const patch = (path: string, json: unknown) => api(path, { method: 'PATCH', json });

function expectParam(res: { status: number; body: any; text: string }, param: string, status = 400) {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ type: 'invalid_request_error', param });
  expect(res.text).not.toMatch(/\n\s+at /);
}

describe('products', () => {
  test('create with a default price, retrieve, update, list', async () => {
    const created = await post('/v1/products', {
      name: 'Lopapeysa',
      description: 'Hand-knitted',
      images: ['https://example.is/peysa.jpg'],
      vat_rate: 24,
      default_price_data: { unit_amount: 24_900 },
      metadata: { sku: 'LP-1' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'product',
      livemode: false,
      name: 'Lopapeysa',
      description: 'Hand-knitted',
      images: ['https://example.is/peysa.jpg'],
      active: true,
      vat_rate: 24,
      default_price: expect.stringMatching(/^price_/),
      metadata: { sku: 'LP-1' },
    });
    expect(created.body.id).toMatch(/^prod_[0-9A-Za-z]{24}$/);
    const price = await api(`/v1/prices/${created.body.default_price}`);
    expect(price.body).toMatchObject({
      object: 'price',
      product: created.body.id,
      unit_amount: 24_900,
      currency: 'ISK',
      type: 'one_time',
      recurring: null,
      active: true,
    });

    const got = await api(`/v1/products/${created.body.id}`);
    expect(got.body).toEqual(created.body);

    const updated = await patch(`/v1/products/${created.body.id}`, {
      name: 'Lopapeysa, grá',
      vat_rate: 11,
      description: null,
      active: false,
    });
    expect(updated.body).toMatchObject({
      name: 'Lopapeysa, grá',
      vat_rate: 11,
      description: null,
      active: false,
    });

    const inactive = await api('/v1/products?active=false');
    expect(inactive.body.data.map((p: any) => p.id)).toContain(created.body.id);
    const active = await api('/v1/products?active=true');
    expect(active.body.data.map((p: any) => p.id)).not.toContain(created.body.id);
    expect(active.body).toMatchObject({ object: 'list', url: '/v1/products', has_more: false });
  });

  test('a recurring default price, with integers as strings from a form post', async () => {
    const form = new URLSearchParams({
      name: 'Áskrift',
      vat_rate: '11',
      'default_price_data[unit_amount]': '1990',
      'default_price_data[recurring][interval]': 'month',
      'default_price_data[recurring][interval_count]': '3',
    });
    const res = await api('/v1/products', { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect(res.body.vat_rate).toBe(11);
    const price = await api(`/v1/prices/${res.body.default_price}`);
    expect(price.body).toMatchObject({
      unit_amount: 1990,
      type: 'recurring',
      recurring: { interval: 'month', interval_count: 3 },
    });
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['a missing name', { vat_rate: 24 }, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a VAT rate of 25', { name: 'x', vat_rate: 25 }, 'vat_rate'],
    ['a VAT rate as text', { name: 'x', vat_rate: 'high' }, 'vat_rate'],
    [
      'a negative amount',
      { name: 'x', default_price_data: { unit_amount: -1 } },
      'default_price_data.unit_amount',
    ],
    [
      'a fractional amount',
      { name: 'x', default_price_data: { unit_amount: 10.5 } },
      'default_price_data.unit_amount',
    ],
    [
      'a decimal string amount',
      { name: 'x', default_price_data: { unit_amount: '10.5' } },
      'default_price_data.unit_amount',
    ],
    [
      'an amount too large',
      { name: 'x', default_price_data: { unit_amount: 1e13 } },
      'default_price_data.unit_amount',
    ],
    [
      'a daily interval',
      { name: 'x', default_price_data: { unit_amount: 1, recurring: { interval: 'day' } } },
      'default_price_data.recurring.interval',
    ],
    [
      'more than three years',
      {
        name: 'x',
        default_price_data: { unit_amount: 1, recurring: { interval: 'month', interval_count: 37 } },
      },
      'default_price_data.recurring.interval_count',
    ],
    ['an http image', { name: 'x', images: ['http://example.is/a.png'] }, 'images.0'],
    ['nine images', { name: 'x', images: Array(9).fill('https://example.is/a.png') }, 'images'],
    ['an unknown field', { name: 'x', colour: 'red' }, 'colour'],
    ['bad metadata', { name: 'x', metadata: { k: 5 } }, 'metadata.k'],
  ])('%s is a 400 naming the param', async (_name, body, param) => {
    expectParam(await post('/v1/products', body), param);
  });

  test('NUL characters (which PostgreSQL text refuses) are a 400 or a 404, never a 500', async () => {
    expectParam(await post('/v1/products', { name: 'a\u0000b' }), 'name');
    expectParam(await post('/v1/products', { name: 'ab', description: 'x\u0000' }), 'description');
    expectParam(await post('/v1/products', { name: 'ab', metadata: { k: '\u0000' } }), 'metadata.k');
    expectParam(await api('/v1/products?starting_after=%00'), 'starting_after');
    expectParam(await api('/v1/products/%00'), 'id', 404);
    expectParam(await api('/v1/products/prod_x/variants/%00'), 'id', 404);
    expectParam(await api('/v1/prices/%00'), 'id', 404);
    expectParam(await post('/v1/prices', { product: '\u0000', unit_amount: 1 }), 'product');
  });

  test('a product that never had a price can be deleted; one with prices must be archived', async () => {
    const bare = await post('/v1/products', { name: 'Draft' });
    const deleted = await api(`/v1/products/${bare.body.id}`, { method: 'DELETE' });
    expect(deleted.body).toEqual({ id: bare.body.id, object: 'product', deleted: true });
    expectParam(await api(`/v1/products/${bare.body.id}`), 'id', 404);

    const sold = await post('/v1/products', { name: 'Sold', default_price_data: { unit_amount: 100 } });
    const refused = await api(`/v1/products/${sold.body.id}`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('product_has_prices');
  });

  test('tenancy: a live product is invisible to the test key, with a hint; other merchants get a plain 404', async () => {
    const live = await stack.api(merchant.liveKey, '/v1/products', {
      method: 'POST',
      json: { name: 'Live' },
    });
    expect(live.body.livemode).toBe(true);
    const res = await api(`/v1/products/${live.body.id}`);
    expectParam(res, 'id', 404);
    expect(res.body.error.message).toContain('exists in live mode');
    expect((await api('/v1/products?limit=100')).body.data.map((p: any) => p.id)).not.toContain(live.body.id);
    const other = await stack.merchant('Other');
    const foreign = await stack.api(other.liveKey, `/v1/products/${live.body.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.message).not.toContain('exists in');
    // A test price cannot be attached to a live product.
    expectParam(await post('/v1/prices', { product: live.body.id, unit_amount: 5 }), 'product');
  });
});

describe('prices', () => {
  let product: any;
  beforeAll(async () => {
    product = (await post('/v1/products', { name: 'Kaffi', default_price_data: { unit_amount: 500 } })).body;
  });

  test('create, retrieve, list by product and type', async () => {
    const monthly = await post('/v1/prices', {
      product: product.id,
      unit_amount: '4990',
      currency: 'isk',
      recurring: { interval: 'week', interval_count: 2 },
      nickname: 'Every other week',
      metadata: { plan: 'b' },
    });
    expect(monthly.status).toBe(200);
    expect(monthly.body).toMatchObject({
      product: product.id,
      variant: null,
      unit_amount: 4990,
      currency: 'ISK',
      type: 'recurring',
      recurring: { interval: 'week', interval_count: 2 },
      nickname: 'Every other week',
      replaces: null,
      replaced_by: null,
      metadata: { plan: 'b' },
    });
    const list = await api(`/v1/prices?product=${product.id}&type=recurring`);
    expect(list.body.data.map((p: any) => p.id)).toEqual([monthly.body.id]);
    const all = await api(`/v1/prices?product=${product.id}`);
    expect(all.body.data.map((p: any) => p.id)).toEqual([monthly.body.id, product.default_price]);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['a missing product', { unit_amount: 5 }, 'product'],
    ['an unknown product', { product: 'prod_nope', unit_amount: 5 }, 'product'],
    ['a missing amount', { product: 'PRODUCT' }, 'unit_amount'],
    ['another currency', { product: 'PRODUCT', unit_amount: 5, currency: 'EUR' }, 'currency'],
    [
      'an interval count of 0',
      { product: 'PRODUCT', unit_amount: 5, recurring: { interval: 'year', interval_count: 0 } },
      'recurring.interval_count',
    ],
    [
      'four years',
      { product: 'PRODUCT', unit_amount: 5, recurring: { interval: 'year', interval_count: 4 } },
      'recurring.interval_count',
    ],
  ])('%s is a 400 naming the param', async (_name, body, param) => {
    const json = { ...body, ...(body.product === 'PRODUCT' && { product: product.id }) };
    expectParam(await post('/v1/prices', json), param);
  });

  test('a new amount replaces the price: the old one is archived, unchanged, and points to the new one', async () => {
    const p = (await post('/v1/products', { name: 'Te', default_price_data: { unit_amount: 700 } })).body;
    const old = p.default_price;
    const replaced = await patch(`/v1/prices/${old}`, { unit_amount: 750, metadata: { v: '2' } });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      unit_amount: 750,
      active: true,
      replaces: old,
      metadata: { v: '2' },
    });
    expect(replaced.body.id).not.toBe(old);

    const before = await api(`/v1/prices/${old}`);
    expect(before.body).toMatchObject({ unit_amount: 700, active: false, replaced_by: replaced.body.id });
    expect((await api(`/v1/products/${p.id}`)).body.default_price).toBe(replaced.body.id);

    // The archived price is replaced once only; change its successor instead.
    const again = await patch(`/v1/prices/${old}`, { unit_amount: 800 });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('price_replaced');

    // Nickname and metadata change in place; the same amount is no change.
    const inPlace = await patch(`/v1/prices/${replaced.body.id}`, { unit_amount: 750, nickname: 'Stór' });
    expect(inPlace.body).toMatchObject({ id: replaced.body.id, nickname: 'Stór', unit_amount: 750 });
    expectParam(await patch(`/v1/prices/${replaced.body.id}`, { unit_amount: 1, active: false }), 'active');
    expectParam(
      await patch(`/v1/prices/${replaced.body.id}`, { recurring: { interval: 'month' } }),
      'recurring',
    );
  });

  test('the database itself refuses to change the amount of a price', async () => {
    await expect(
      stack.knex('prices').where({ id: product.default_price }).update({ unit_amount: 1 }),
    ).rejects.toThrow(/cannot change amount or terms/);
  });

  test('PATCH product default_price_data replaces the default price; default_price picks another', async () => {
    const p = (await post('/v1/products', { name: 'Kaka', default_price_data: { unit_amount: 900 } })).body;
    const res = await patch(`/v1/products/${p.id}`, {
      default_price_data: { unit_amount: 990, recurring: { interval: 'year' } },
    });
    expect(res.body.default_price).not.toBe(p.default_price);
    const now = (await api(`/v1/prices/${res.body.default_price}`)).body;
    expect(now).toMatchObject({
      unit_amount: 990,
      type: 'recurring',
      recurring: { interval: 'year', interval_count: 1 },
      replaces: p.default_price,
    });
    expect((await api(`/v1/prices/${p.default_price}`)).body).toMatchObject({
      active: false,
      unit_amount: 900,
    });

    const extra = (await post('/v1/prices', { product: p.id, unit_amount: 1500 })).body;
    expect((await patch(`/v1/products/${p.id}`, { default_price: extra.id })).body.default_price).toBe(
      extra.id,
    );
    expectParam(await patch(`/v1/products/${p.id}`, { default_price: p.default_price }), 'default_price');
    expectParam(
      await patch(`/v1/products/${p.id}`, { default_price: product.default_price }),
      'default_price',
    );
    expectParam(
      await patch(`/v1/products/${p.id}`, {
        default_price: extra.id,
        default_price_data: { unit_amount: 1 },
      }),
      'default_price_data',
    );
  });
});

describe('variants', () => {
  test('named choices with their own price and stock; a new amount replaces the variant price', async () => {
    const p = (await post('/v1/products', { name: 'Bolur' })).body;
    const small = await post(`/v1/products/${p.id}/variants`, { name: 'S', unit_amount: 3900, stock: 5 });
    expect(small.status).toBe(200);
    expect(small.body).toMatchObject({
      object: 'product_variant',
      product: p.id,
      name: 'S',
      unit_amount: 3900,
      stock: 5,
      active: true,
      price: expect.stringMatching(/^price_/),
    });
    expect(small.body.id).toMatch(/^var_/);
    const large = await post(`/v1/products/${p.id}/variants`, { name: 'L', unit_amount: '4500' });
    expect(large.body.stock).toBeNull();

    const list = await api(`/v1/products/${p.id}/variants`);
    expect(list.body.data.map((v: any) => [v.name, v.unit_amount])).toEqual([
      ['L', 4500],
      ['S', 3900],
    ]);
    expect((await api(`/v1/prices/${small.body.price}`)).body.variant).toBe(small.body.id);

    const changed = await patch(`/v1/products/${p.id}/variants/${small.body.id}`, {
      unit_amount: 4100,
      stock: null,
      name: 'Small',
    });
    expect(changed.body).toMatchObject({ name: 'Small', unit_amount: 4100, stock: null });
    expect(changed.body.price).not.toBe(small.body.price);
    expect((await api(`/v1/prices/${small.body.price}`)).body).toMatchObject({
      active: false,
      unit_amount: 3900,
      replaced_by: changed.body.price,
    });
    expect((await api(`/v1/products/${p.id}/variants/${small.body.id}`)).body).toEqual(changed.body);

    const removed = await api(`/v1/products/${p.id}/variants/${large.body.id}`, { method: 'DELETE' });
    expect(removed.body).toEqual({ id: large.body.id, object: 'product_variant', deleted: true });
    expect((await api(`/v1/prices/${large.body.price}`)).body.active).toBe(false);
    expectParam(await api(`/v1/products/${p.id}/variants/${large.body.id}`), 'variant', 404);

    const other = (await post('/v1/products', { name: 'Annað' })).body;
    expectParam(await api(`/v1/products/${other.id}/variants/${small.body.id}`), 'variant', 404);
    expectParam(await api(`/v1/products/prod_missing/variants`), 'id', 404);
  });

  test.each<[string, Record<string, unknown>, string]>([
    ['a missing name', { unit_amount: 5 }, 'name'],
    ['a missing amount', { name: 'M' }, 'unit_amount'],
    ['negative stock', { name: 'M', unit_amount: 5, stock: -1 }, 'stock'],
    ['fractional stock', { name: 'M', unit_amount: 5, stock: 1.5 }, 'stock'],
  ])('%s is a 400 naming the param', async (_name, body, param) => {
    const p = (await post('/v1/products', { name: 'V' })).body;
    expectParam(await post(`/v1/products/${p.id}/variants`, body), param);
  });

  test('stock is taken atomically: 10 concurrent takes of 1 from a stock of 3 succeed 3 times', async () => {
    const p = (await post('/v1/products', { name: 'Fá eintök' })).body;
    const v = (await post(`/v1/products/${p.id}/variants`, { name: 'One size', unit_amount: 100, stock: 3 }))
      .body;
    const repo = createVariantRepository(stack.knex);
    const scope = { merchantId: merchant.id, livemode: false };
    const results = await Promise.all(Array.from({ length: 10 }, () => repo.takeStock(scope, v.id, 1)));
    expect(results.filter(Boolean)).toHaveLength(3);
    expect((await api(`/v1/products/${p.id}/variants/${v.id}`)).body.stock).toBe(0);
    expect(await repo.takeStock({ merchantId: merchant.id, livemode: true }, v.id, 1)).toBe(false);
  });
});

describe('pagination', () => {
  test('newest first, stable while rows are inserted between pages, both directions', async () => {
    const m = await stack.merchant('Paging');
    const call = (path: string, init?: RequestInit & { json?: unknown }) => stack.api(m.testKey, path, init);
    const ids: string[] = [];
    for (let i = 0; i < 23; i++)
      ids.push((await call('/v1/products', { method: 'POST', json: { name: `P${i}` } })).body.id);
    // Rows created in one statement share created_at: the id breaks the tie.
    const repo = createProductRepository(stack.knex);
    const scope = { merchantId: m.id, livemode: false };
    await stack.knex.transaction(async (trx) => {
      for (let i = 0; i < 4; i++)
        ids.push((await repo.create(scope, { name: `T${i}`, vatRate: 24 }, trx)).id);
    });
    const expected = (await call('/v1/products?limit=100')).body.data.map((p: any) => p.id);
    expect([...expected].sort()).toEqual([...ids].sort());

    // The first page is the newest rows at the time it is read; paging on from a cursor must then be
    // unaffected by rows that arrive meanwhile.
    const first = await call('/v1/products?limit=5');
    const seen: string[] = first.body.data.map((p: any) => p.id);
    let cursor: string | undefined = seen.at(-1);
    let inserted = 0;
    for (;;) {
      // Concurrent writers: new products arrive while each later page is read.
      const [page] = await Promise.all([
        call(`/v1/products?limit=5&starting_after=${cursor}`),
        ...[1, 2].map(() => call('/v1/products', { method: 'POST', json: { name: `new ${inserted++}` } })),
      ]);
      seen.push(...page.body.data.map((p: any) => p.id));
      if (!page.body.has_more) break;
      cursor = page.body.data.at(-1).id;
    }
    expect(seen).toEqual(expected);

    // Back towards newer rows from the oldest: the original rows, then the ones added meanwhile.
    const back: string[] = [];
    cursor = expected.at(-1);
    for (;;) {
      const page = await call(`/v1/products?limit=7&ending_before=${cursor}`);
      back.unshift(...page.body.data.map((p: any) => p.id));
      if (!page.body.has_more) break;
      cursor = page.body.data[0].id;
    }
    expect(back.slice(-(expected.length - 1))).toEqual(expected.slice(0, -1));
    expect(back).toHaveLength(expected.length - 1 + inserted);
  });
});

test('the OpenAPI document describes every catalog and customer endpoint', async () => {
  const doc = (await stack.api(null, '/v1/openapi.json')).body;
  const expected: [string, string[]][] = [
    ['/v1/products', ['post', 'get']],
    ['/v1/products/{id}', ['get', 'patch', 'delete']],
    ['/v1/products/{id}/variants', ['post', 'get']],
    ['/v1/products/{id}/variants/{variant}', ['get', 'patch', 'delete']],
    ['/v1/prices', ['post', 'get']],
    ['/v1/prices/{id}', ['get', 'patch']],
    ['/v1/customers', ['post', 'get']],
    ['/v1/customers/{id}', ['get', 'patch', 'delete']],
    ['/v1/coupons', ['post', 'get']],
    ['/v1/coupons/{id}', ['get', 'patch', 'delete']],
    ['/v1/promotion-codes', ['post', 'get']],
    ['/v1/promotion-codes/{id}', ['get', 'patch']],
  ];
  for (const [path, methods] of expected) {
    for (const method of methods) {
      const op = doc.paths[path]?.[method];
      expect({ path, method, documented: op !== undefined }).toEqual({ path, method, documented: true });
      expect(op.responses['200'].content['application/json'].schema).toBeDefined();
      if (method === 'post' || method === 'patch')
        expect(op.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    }
  }
  const createProduct = doc.paths['/v1/products'].post.requestBody.content['application/json'].schema;
  expect(createProduct.required).toEqual(['name']);
  expect(createProduct.properties.default_price_data.properties.recurring.properties.interval.enum).toEqual([
    'week',
    'month',
    'year',
  ]);
  const listCustomers = doc.paths['/v1/customers'].get.parameters.map((p: any) => p.name);
  expect(listCustomers).toEqual(
    expect.arrayContaining(['email', 'kennitala', 'limit', 'starting_after', 'ending_before']),
  );
  expect(doc.paths['/v1/promotion-codes'].post.tags).toEqual(['Promotion Codes']);
  const coupon = doc.paths['/v1/coupons/{id}'].get.responses['200'].content['application/json'].schema;
  expect(Object.keys(coupon.properties)).toEqual(
    expect.arrayContaining([
      'percent_off',
      'amount_off',
      'duration',
      'max_redemptions',
      'redeem_by',
      'applies_to',
      'valid',
    ]),
  );
});
