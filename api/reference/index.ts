import examples from './examples.json';
import { SYSTEM_DESCRIPTIONS } from './descriptions/system';
import { PAYMENT_DESCRIPTIONS } from './descriptions/payments';
import { BOOKS_DESCRIPTIONS } from './descriptions/books';
import { CATALOG_DESCRIPTIONS } from './descriptions/catalog';
import { POS_DESCRIPTIONS } from './descriptions/pos';
import { PLATFORM_DESCRIPTIONS } from './descriptions/platform';

/**
 * What a person reads about each operation beside its schemas (decision 0252): a description
 * (what it does, when to use it, the errors it answers and why) and a request and a response
 * example, keyed by `METHOD /path` as the OpenAPI document writes the path. Descriptions live in
 * one module per area, examples in examples.json; the docs test validates every example against
 * its operation's schemas and fails for an operation without them.
 */
const DESCRIPTIONS: Record<string, string> = {
  ...SYSTEM_DESCRIPTIONS,
  ...PAYMENT_DESCRIPTIONS,
  ...BOOKS_DESCRIPTIONS,
  ...CATALOG_DESCRIPTIONS,
  ...POS_DESCRIPTIONS,
  ...PLATFORM_DESCRIPTIONS,
};

export interface OperationExamples {
  request?: unknown;
  response?: unknown;
}

const EXAMPLES = examples as Record<string, OperationExamples>;

export function operationKey(method: string, openApiPath: string): string {
  return `${method.toUpperCase()} ${openApiPath}`;
}

export function descriptionOf(key: string): string | undefined {
  return DESCRIPTIONS[key];
}

export function examplesOf(key: string): OperationExamples {
  return EXAMPLES[key] ?? {};
}

/** Every operation key that has a description, so a test can find one left for a removed route. */
export function describedOperations(): string[] {
  return Object.keys(DESCRIPTIONS);
}
