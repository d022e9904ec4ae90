import type { Knex } from '../../db/knex';
import type { Logger } from '../../stack/logger';
import type { Mailer } from '../../adapters/mail/mailer';
import type { Collector, CollectionCase } from '../../adapters/collectors/collector';
import { ClaimRejectedError } from '../../adapters/banks/claims-errors';
import {
  createCollectionRepository,
  lettersParties,
  markStep,
  unfinishedSteps,
  type CollectionClaimRow,
  type CollectionStepRow,
} from '../../db/collection';
import type { ClaimsBanks } from '../claims/claims-bank';
import { claimsBankFor } from '../claims/claims-bank';
import { collectionLetter, costLabels, type LetterParties } from './collection-mail';

/**
 * What a collection step does outside Skil's database (decision 0246), after the step's commit and
 * each marked on the step's row when done, so a retry or a restarted worker repeats nothing that
 * was done and a repeat of what was not is harmless:
 * - the bank: the krafa is altered with the totals of the step (its principal and all collection
 *   costs so far as `otherDefaultCostsAmount`; interest is the krafa's rule at the bank), under the
 *   identity `{claim}:collection:{step}`. Totals, not increments, so a retried or repeated call
 *   leaves the same figure. A krafa paid or cancelled at the bank meanwhile needs no alteration.
 * - the payer: a letter in Icelandic with the breakdown, to the customer's e-mail; a krafa with no
 *   customer e-mail records that no mail could be sent (the bank and the payer page still show it).
 * - a hand-off: the case is exported to the collector (decision 0247).
 */

type StepWithClaim = CollectionStepRow & { claim: CollectionClaimRow };

export interface CollectionDeliveryDeps extends ClaimsBanks {
  knex: Knex;
  log: Logger;
  mailer?: Mailer | undefined;
  collector?: Collector | undefined;
  /** Base URL of the payer pages (`{base}/krafa/{claim_id}`); unset: letters carry no link. */
  publicBaseUrl?: string | undefined;
  /** Bank calls in flight at once. */
  concurrency?: number;
}

const address = (
  a: { line1?: string | null; postal_code?: string | null; city?: string | null } | null | undefined,
) =>
  a ? [a.line1, [a.postal_code, a.city].filter(Boolean).join(' ')].filter(Boolean).join(', ') || null : null;

export function createCollectionDelivery(deps: CollectionDeliveryDeps) {
  const repo = createCollectionRepository(deps.knex);

  async function toBank(s: StepWithClaim, supersededByLater: boolean): Promise<void> {
    if (s.bank_altered_at !== null) return;
    // A later step of the krafa in the same delivery sends totals that include this one's.
    if (s.status === 'taken' && s.claim.status === 'issued' && !supersededByLater) {
      const bank = claimsBankFor(deps, s.livemode);
      try {
        await bank.alterClaim(
          s.claim.bank_claim_id,
          { otherDefaultCostsAmount: s.collection_costs },
          { idempotencyIdentity: `${s.claim_id}:collection:${s.step}` },
        );
      } catch (err) {
        if (!(err instanceof ClaimRejectedError)) throw err;
        // Paid or cancelled at the bank meanwhile: nothing to show there. Any other refusal is the
        // bank's word on this krafa alone: logged and tried again by the next run, the page goes on.
        if (!['CLAIM_IS_PAID', 'CLAIM_IS_CANCELLED'].includes(err.resultCode)) {
          deps.log.warn({ err, step: s.id, claim: s.claim_id }, 'collection step refused by the bank');
          return;
        }
      }
    }
    await markStep(deps.knex, s.id, { bank_altered_at: new Date() });
  }

  async function parties(claims: CollectionClaimRow[]) {
    const { merchants, customers } = await lettersParties(
      deps.knex,
      [...new Set(claims.map((c) => c.merchant_id))],
      [...new Set(claims.map((c) => c.customer_id).filter((id): id is string => id !== null))],
    );
    return {
      merchant: new Map(merchants.map((m) => [m.id, m])),
      customer: new Map(customers.map((c) => [c.id, c])),
    };
  }

  function partiesOf(
    s: StepWithClaim,
    p: Awaited<ReturnType<typeof parties>>,
  ): LetterParties & { email: string | null } {
    const m = p.merchant.get(s.merchant_id);
    const c = s.claim.customer_id ? p.customer.get(s.claim.customer_id) : undefined;
    const la = m?.legal_address;
    return {
      claimant: {
        name: m?.name ?? '',
        kennitala: s.claim.claimant_kennitala,
        address: la ? `${la.street}, ${la.postalCode} ${la.city}` : null,
      },
      payer: { name: c?.name ?? null, kennitala: s.claim.payer_kennitala, address: address(c?.address) },
      email: c?.email ?? null,
    };
  }

  async function mail(s: StepWithClaim, p: Awaited<ReturnType<typeof parties>>): Promise<void> {
    if (s.mailed_at !== null || s.mail_error !== null) return;
    const who = partiesOf(s, p);
    if (s.status === 'withdrawn' || !who.email || !deps.mailer) {
      const why =
        s.status === 'withdrawn'
          ? 'withdrawn: paid before the step'
          : !who.email
            ? 'no e-mail address for the payer'
            : 'no mail server';
      await markStep(deps.knex, s.id, { mail_error: why });
      return;
    }
    const steps = await repo.steps({ merchantId: s.merchant_id, livemode: s.livemode }, s.claim_id);
    const upTo = steps.filter((x) => x.step <= s.step);
    const plan = s.claim.collection_plan;
    const nextKind = plan?.[s.step + 1]?.kind;
    const fresh = await repo.claim({ merchantId: s.merchant_id, livemode: s.livemode }, s.claim_id);
    const message = collectionLetter({
      to: who.email,
      claim: s.claim,
      step: s,
      parties: who,
      breakdown: {
        principal: s.principal,
        interest: s.interest,
        costs: costLabels(s.costs_total - s.collection_costs, upTo),
        total: s.total,
      },
      pageUrl: deps.publicBaseUrl ? `${deps.publicBaseUrl}/krafa/${s.claim_id}` : null,
      next:
        nextKind && fresh?.collection_next_on && fresh.collection_next_step === s.step + 1
          ? { kind: nextKind, on: fresh.collection_next_on }
          : null,
      payWithinDays: s.kind === 'warning' ? (plan?.[s.step]?.payWithinDays ?? null) : null,
    });
    try {
      await deps.mailer.send(message);
      await markStep(deps.knex, s.id, { mailed_at: new Date() });
    } catch (err) {
      // Left for the next run: the mail server may be back by then.
      deps.log.warn({ err, step: s.id }, 'collection letter not sent');
    }
  }

  async function handOff(s: StepWithClaim, p: Awaited<ReturnType<typeof parties>>): Promise<void> {
    if (s.kind !== 'hand_off' || s.handed_off_at !== null || s.status !== 'taken') return;
    if (!deps.collector) return;
    const who = partiesOf(s, p);
    const steps = await repo.steps({ merchantId: s.merchant_id, livemode: s.livemode }, s.claim_id);
    const c: CollectionCase = {
      format: 'skil.collection_case.v1',
      reference: s.claim_id,
      claimant: who.claimant,
      debtor: { ...who.payer, email: who.email },
      claim: {
        claim_number: s.claim.claim_number,
        bank_claim_id: s.claim.bank_claim_id,
        description: s.claim.description,
        issued_on: s.claim.issued_at ? new Date(s.claim.issued_at).toISOString().slice(0, 10) : null,
        due_date: s.claim.due_date,
        final_due_date: s.claim.final_due_date,
        currency: 'ISK',
      },
      amount_owed: {
        as_of: s.taken_on,
        principal: s.principal,
        interest: s.interest,
        costs: s.costs_total,
        total: s.total,
      },
      history: steps.map((x) => ({
        step: x.step,
        kind: x.kind,
        taken_on: x.taken_on,
        cost: x.cost,
        status: x.status,
        total: x.total,
      })),
    };
    await deps.collector.handOff(c);
    await markStep(deps.knex, s.id, { handed_off_at: new Date() });
  }

  /** Each step's bank alteration, letter and hand-off, kröfur side by side, a krafa's steps in order. */
  async function deliver(steps: StepWithClaim[]): Promise<void> {
    if (steps.length === 0) return;
    const p = await parties(steps.map((s) => s.claim));
    const byClaim = new Map<string, StepWithClaim[]>();
    for (const s of steps) byClaim.set(s.claim_id, [...(byClaim.get(s.claim_id) ?? []), s]);
    const queue = [...byClaim.values()];
    const lane = async () => {
      for (let group = queue.shift(); group; group = queue.shift())
        for (const [i, s] of group.sort((a, b) => a.step - b.step).entries()) {
          await toBank(s, i < group.length - 1);
          await mail(s, p);
          await handOff(s, p);
        }
    };
    await Promise.all(Array.from({ length: Math.min(deps.concurrency ?? 16, queue.length) }, lane));
  }

  return {
    deliver,
    async finishUnfinished(input: {
      livemode: boolean;
      testClockId: string | null;
      limit: number;
    }): Promise<number> {
      const steps = await unfinishedSteps(deps.knex, input, input.limit);
      await deliver(steps);
      return steps.length;
    },
  };
}

export type CollectionDelivery = ReturnType<typeof createCollectionDelivery>;
