import type { LegalAddress } from './merchant-profile';

/** A company as the national company registry (fyrirtækjaskrá) has it. */
export interface RegistryCompany {
  kennitala: string;
  name: string;
  legal_address: LegalAddress;
}

/** The company-registry adapter: one implementation per registry, chosen per environment. */
export interface CompanyRegistry {
  /** Human-readable name of the source, returned with each lookup. */
  readonly source: string;
  /** The company with this kennitala (10 digits), or null when the registry has none. */
  lookup(kennitala: string): Promise<RegistryCompany | null>;
}

/** The registry could not be asked (unreachable, failing, or answering off its contract). */
export class RegistryUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegistryUnavailableError';
  }
}

/**
 * Real public companies whose kennitölur are verified in CLAIMS-DOMAIN.md §2.1, with their
 * registered addresses as they publish them. Test data: a real registry adapter replaces it live.
 */
const TEST_COMPANIES: RegistryCompany[] = [
  {
    kennitala: '4710080280',
    name: 'Landsbankinn hf.',
    legal_address: { street: 'Reykjastræti 6', city: 'Reykjavík', postalCode: '101', country: 'IS' },
  },
  {
    kennitala: '4910080160',
    name: 'Íslandsbanki hf.',
    legal_address: { street: 'Hagasmári 3', city: 'Kópavogur', postalCode: '201', country: 'IS' },
  },
  {
    kennitala: '5810080150',
    name: 'Arion banki hf.',
    legal_address: { street: 'Borgartún 19', city: 'Reykjavík', postalCode: '105', country: 'IS' },
  },
  {
    kennitala: '4602070880',
    name: 'Síminn hf.',
    legal_address: { street: 'Ármúli 25', city: 'Reykjavík', postalCode: '108', country: 'IS' },
  },
  {
    kennitala: '6312051780',
    name: 'Icelandair Group hf.',
    legal_address: { street: 'Reykjavíkurflugvöllur', city: 'Reykjavík', postalCode: '101', country: 'IS' },
  },
];

/** A company's registered name in the test registry's table, or null (the simulated bank's payer pages). */
export function testCompanyName(kennitala: string): string | null {
  return TEST_COMPANIES.find((c) => c.kennitala === kennitala)?.name ?? null;
}

/** The test environment's registry: a fixed table of real public companies. */
export function createTestCompanyRegistry(companies: RegistryCompany[] = TEST_COMPANIES): CompanyRegistry {
  const byId = new Map(companies.map((c) => [c.kennitala, c]));
  return {
    source: 'test_registry',
    lookup: (kennitala) => Promise.resolve(byId.get(kennitala) ?? null),
  };
}
