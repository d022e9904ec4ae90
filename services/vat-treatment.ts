import type { VatRate } from '../domain/vat';
import { InvalidRequestError } from '../domain/errors';
import { vatTreatmentOf, vatTreatmentProblem, type VatTreatment } from '../domain/vat-category';

/** What a caller may send beside `vat_rate` (decision 0234); null clears a field on update. */
export interface VatTreatmentInput {
  vat_category?: VatTreatment['vat_category'] | undefined;
  vat_exemption_reason?: string | null | undefined;
  vat_exemption_reason_code?: string | null | undefined;
}

/**
 * The treatment a line or product is stored with, or a 400 naming the field at fault under `prefix`
 * (`items.2.`), for every path that takes a rate: products, checkout items, till lines.
 */
export function checkedVatTreatment(rate: VatRate, input: VatTreatmentInput, prefix = ''): VatTreatment {
  const treatment = vatTreatmentOf(input);
  const problem = vatTreatmentProblem(rate, treatment);
  if (problem)
    throw new InvalidRequestError(`Invalid ${prefix}${problem.param}: ${problem.message}`, {
      code: 'parameter_invalid',
      param: `${prefix}${problem.param}`,
    });
  return treatment;
}

/**
 * A product's treatment after an update: a new category drops the stored reasons unless new ones
 * come with it, so S or Z never keeps an exemption reason from E.
 */
export function mergedVatTreatment(stored: VatTreatment, input: VatTreatmentInput): VatTreatmentInput {
  const categoryChanged = input.vat_category !== undefined;
  const keep = <K extends 'vat_exemption_reason' | 'vat_exemption_reason_code'>(k: K) =>
    input[k] !== undefined ? input[k] : categoryChanged ? null : stored[k];
  return {
    vat_category: categoryChanged ? input.vat_category : stored.vat_category,
    vat_exemption_reason: keep('vat_exemption_reason'),
    vat_exemption_reason_code: keep('vat_exemption_reason_code'),
  };
}
