import type { Knex } from '../../db/knex';
import type { Scope } from '../../domain/scope';
import { createCollectionRepository } from '../../db/collection';
import {
  COLLECTION_CAP_KEYS,
  type CollectionCapKey,
  type CollectionCaps,
} from '../../domain/collection-caps';
import {
  collectionPolicyProblem,
  defaultCollectionPolicy,
  type CollectionPolicy,
} from '../../domain/collection-policy';
import { InvalidRequestError } from '../../domain/errors';

/**
 * A merchant's collection policy and the operator's caps (decision 0245). A policy above a cap is
 * refused with the cap named and nothing stored; the caps are data the operator updates.
 */

export interface PolicyObject extends CollectionPolicy {
  object: 'collection_policy';
  livemode: boolean;
  /** True until the merchant stores one: the lawful defaults at the current caps. */
  is_default: boolean;
}

export interface CapObject {
  object: 'collection_cap';
  livemode: boolean;
  key: CollectionCapKey;
  amount: number;
  source: string;
}

export function createCollectionPolicies(deps: { knex: Knex }) {
  const repo = createCollectionRepository(deps.knex);

  async function caps(livemode: boolean): Promise<CollectionCaps> {
    const { sources: _sources, ...c } = await repo.caps(livemode);
    return c;
  }

  return {
    caps,

    async retrieve(scope: Scope): Promise<PolicyObject> {
      const stored = await repo.policy(scope);
      const c = await caps(scope.livemode);
      // A cap lowered under a stored policy leaves the policy as stored: a step never costs more than
      // the cap of the day it is taken (collection-run.ts).
      const policy = stored ?? defaultCollectionPolicy(c);
      return { object: 'collection_policy', livemode: scope.livemode, is_default: !stored, ...policy };
    },

    /** Stores the merchant's policy, or refuses it (400 naming the cap or rule it breaks; nothing stored). */
    async update(scope: Scope, input: CollectionPolicy): Promise<PolicyObject> {
      const c = await caps(scope.livemode);
      const problem = collectionPolicyProblem(input, c);
      if (problem)
        throw new InvalidRequestError(`${problem.param}: ${problem.message}`, {
          code: 'parameter_invalid',
          param: problem.param,
        });
      await repo.savePolicy(scope, input);
      return { object: 'collection_policy', livemode: scope.livemode, is_default: false, ...input };
    },

    async listCaps(livemode: boolean): Promise<CapObject[]> {
      const { sources, ...c } = await repo.caps(livemode);
      return COLLECTION_CAP_KEYS.map((key) => ({
        object: 'collection_cap' as const,
        livemode,
        key,
        amount: c[key],
        source: sources[key] ?? '',
      }));
    },

    /** The operator sets a cap (the regulation changed); policies above it are capped when steps are taken. */
    async setCap(input: {
      livemode: boolean;
      key: CollectionCapKey;
      amount: number;
      source: string;
    }): Promise<CapObject> {
      await repo.setCap(input.livemode, input.key, input.amount, input.source);
      return { object: 'collection_cap', ...input };
    },
  };
}

export type CollectionPolicies = ReturnType<typeof createCollectionPolicies>;
