import { z } from 'zod';
import type { RegistryCompany } from '../../domain/company-registry';

export const RegistryCompanySchema = z.object({
  object: z.literal('registry_company'),
  kennitala: z.string(),
  name: z.string(),
  legal_address: z.object({
    street: z.string(),
    city: z.string(),
    postalCode: z.string(),
    country: z.string(),
  }),
  source: z.string(),
});

export type RegistryCompanyObject = z.output<typeof RegistryCompanySchema>;

/** A company found in the registry, naming the registry it came from. */
export function presentRegistryCompany(company: RegistryCompany, source: string): RegistryCompanyObject {
  return { object: 'registry_company' as const, ...company, source };
}
