import type { Scope } from '../../domain/scope';
import type { CompanyRegistry } from '../../domain/company-registry';
import { RegistryUnavailableError, createTestCompanyRegistry } from '../../domain/company-registry';
import { NotFoundError, ServiceUnavailableError } from '../../domain/errors';
import { presentRegistryCompany, type RegistryCompanyObject } from './registry-company-object';

/** Company registries per environment; live is null unless REGISTRY_URL configures one (decision 0166). */
export interface CompanyRegistries {
  test: CompanyRegistry;
  live: CompanyRegistry | null;
}

/** Looks a company up in the national company registry of the key's environment. */
export function createRegistryLookup(
  registries: CompanyRegistries = { test: createTestCompanyRegistry(), live: null },
) {
  return async function lookUpCompany(scope: Scope, kennitala: string): Promise<RegistryCompanyObject> {
    const registry = scope.livemode ? registries.live : registries.test;
    if (!registry) {
      throw new ServiceUnavailableError(
        'The company registry is not available in live mode yet',
        'registry_unavailable',
      );
    }
    let company;
    try {
      company = await registry.lookup(kennitala);
    } catch (err) {
      // A registry that cannot answer is the service being unavailable, not the merchant's mistake.
      if (err instanceof RegistryUnavailableError)
        throw new ServiceUnavailableError(
          `The company registry could not be reached: ${err.message}`,
          'registry_unavailable',
        );
      throw err;
    }
    if (!company) {
      throw new NotFoundError(`The company registry has no company with kennitala ${kennitala}`, 'kennitala');
    }
    return presentRegistryCompany(company, registry.source);
  };
}

export type RegistryLookup = ReturnType<typeof createRegistryLookup>;
