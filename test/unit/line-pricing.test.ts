import { priceLine } from '../../domain/line-pricing';

const kaffi = { id: 'prod_kaffi', name: 'Kaffi', vat_rate: 11 as const };

describe('priceLine', () => {
  test('a product at its price: unit amount × quantity, the product’s name and VAT rate', () => {
    expect(priceLine({ product: kaffi, unitAmount: 650 }, 3)).toEqual({
      product_id: 'prod_kaffi',
      variant_id: null,
      description: 'Kaffi',
      unit_amount: 650,
      vat_rate: 11,
      vat_category: null,
      vat_exemption_reason: null,
      vat_exemption_reason_code: null,
      quantity: 3,
      gross: 1950,
      discount_amount: 0,
      amount: 1950,
    });
  });

  test('a variant names itself after the product and keeps the product’s VAT rate', () => {
    const line = priceLine({ product: kaffi, variant: { id: 'var_stor', name: 'Stór' }, unitAmount: 790 }, 2);
    expect(line).toMatchObject({
      product_id: 'prod_kaffi',
      variant_id: 'var_stor',
      description: 'Kaffi — Stór',
      unit_amount: 790,
      vat_rate: 11,
      amount: 1580,
    });
    expect(priceLine({ product: kaffi, variant: null, unitAmount: 650 }, 1).description).toBe('Kaffi');
  });

  test('an ad hoc line keeps its own text and VAT rate, with no product', () => {
    expect(priceLine({ description: 'Viðgerð', unitAmount: 12_400, vatRate: 24 }, 1)).toEqual({
      product_id: null,
      variant_id: null,
      description: 'Viðgerð',
      unit_amount: 12_400,
      vat_rate: 24,
      vat_category: null,
      vat_exemption_reason: null,
      vat_exemption_reason_code: null,
      quantity: 1,
      gross: 12_400,
      discount_amount: 0,
      amount: 12_400,
    });
  });

  test('a line discount comes off the gross, in whole krónur', () => {
    const line = priceLine({ product: kaffi, unitAmount: 650 }, 4, 333);
    expect(line.gross).toBe(2600);
    expect(line.discount_amount).toBe(333);
    expect(line.amount).toBe(2267);
    expect(Number.isInteger(line.amount)).toBe(true);
  });

  test('a gross past the safe integers is returned as is, for the caller to refuse', () => {
    const line = priceLine({ description: 'x', unitAmount: Number.MAX_SAFE_INTEGER, vatRate: 0 }, 1000);
    expect(Number.isSafeInteger(line.gross)).toBe(false);
  });

  test('a line carries its VAT category from the product or as given (decision 0234)', () => {
    const course = {
      ...kaffi,
      vat_rate: 0 as const,
      vat_category: 'E' as const,
      vat_exemption_reason: 'Kennsla',
    };
    expect(priceLine({ product: course, unitAmount: 9000 }, 1)).toMatchObject({
      vat_rate: 0,
      vat_category: 'E',
      vat_exemption_reason: 'Kennsla',
      vat_exemption_reason_code: null,
    });
    const vat = {
      vat_category: 'O' as const,
      vat_exemption_reason: null,
      vat_exemption_reason_code: 'VATEX-EU-O',
    };
    expect(priceLine({ description: 'Útlagt', unitAmount: 500, vatRate: 0, vat }, 1)).toMatchObject(vat);
  });
});
