import type { z } from 'zod';
import { ClaimSchema } from '../../services/claims/claim-object';
import { listOf, listResponse } from '../list';
import { pageOptions } from '../fields';
import { CreateClaim, ListClaims, claimFiltersOf } from '../routes/claims';
import type { McpDeps } from './services';
import { LIST_NOTE, idInput, readTool, type ToolDef } from './tool';
import { writeTool } from './write-tool';

type Claim = z.output<typeof ClaimSchema>;

const CONFIRM_NOTE =
  'With a live key the first call changes nothing: it answers status confirmation_required with a preview, a message and a confirmation_token good for 5 minutes; show the message to the person and, once they agree, call again with the same arguments plus confirmation_token.';

/** Kröfur (bank claims), as `/v1/claims` makes and reads them; live ones need confirmation (decision 0202). */
export function claimTools(deps: McpDeps): ToolDef[] {
  const s = deps.services;
  return [
    writeTool(deps, {
      name: 'create_claim',
      title: 'Create a krafa (bank claim)',
      description: `Create a krafa (clm_…): a claim for \`amount\` whole ISK that appears in the payer's online bank, to a customer (cus_…, with a kennitala) or a payer_kennitala (10 digits), due on due_date (gjalddagi, YYYY-MM-DD, not in the past; a closed banking day moves to the next). Optional: final_due_date (eindagi), cancellation_date, notice_fee (seðilgjald, at most 950 ISK), default_charges, default_interest, discount, allow_partial_payment, description. Moves money: the payer is asked to pay it; it starts pending and the next claim batch issues it at the bank. The merchant must have kröfur enabled. ${CONFIRM_NOTE}`,
      input: CreateClaim,
      output: ClaimSchema,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      dryRunNote:
        'Nothing was created and nothing goes to the bank; the id and claim number shown are not kept.',
      run: (services, ctx, body) => services.claims.create(ctx.scope, body),
      confirm: {
        needed: (scope) => scope.livemode,
        about: (_ctx, body, claim: Claim) =>
          Promise.resolve({
            objectId: body.customer ?? null,
            amount: claim.amount,
            summary: `This sends a krafa of ${claim.amount} ISK${claim.notice_fee ? ` (and a ${claim.notice_fee} ISK notice fee)` : ''} to the online bank of kennitala ${claim.payer_kennitala}, due ${claim.due_date}, final due date ${claim.final_due_date}.`,
          }),
      },
    }),
    writeTool(deps, {
      name: 'cancel_claim',
      title: 'Cancel a krafa',
      description: `Cancel an unpaid krafa (clm_…): it is withdrawn from the payer's online bank (at the bank too once issued) and can no longer be paid; a checkout it was to pay stays unpaid, and a subscription it collected for goes on as if unpaid. Withholds money: what is still due on it. A paid krafa cannot be cancelled; cancelling one again changes nothing. ${CONFIRM_NOTE} dry_run and the preview show the krafa as it is now: the cancel itself is checked when it is made.`,
      input: idInput('claim', 'clm'),
      output: ClaimSchema,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
      // A rolled-back cancel would still cancel an issued krafa at the bank: the preview only reads.
      dryRun: (ctx, { id }) => s.claims.retrieve(ctx.scope, id),
      dryRunNote: 'Nothing was cancelled; this is the krafa as it is now.',
      run: (_services, ctx, { id }) => s.claims.cancel(ctx.scope, id),
      confirm: {
        needed: (scope) => scope.livemode,
        about: (_ctx, { id }, claim: Claim) =>
          Promise.resolve({
            objectId: id,
            amount: claim.amount - claim.amount_paid,
            summary: `This cancels krafa ${id} (${claim.status}) of ${claim.amount} ISK to kennitala ${claim.payer_kennitala}, due ${claim.due_date}: ${claim.amount - claim.amount_paid} ISK still due will not be collected.`,
          }),
      },
    }),
    readTool({
      name: 'list_claims',
      title: 'List kröfur',
      description: `List kröfur (clm_…): amount and amount_paid in whole ISK, status (pending, issued, partially_paid, paid, cancelled, …), payer_kennitala, due dates and claim key. Filter by status, customer, payer_kennitala or due_date { gte, lte } (YYYY-MM-DD). ${LIST_NOTE}`,
      input: ListClaims,
      output: listOf(ClaimSchema),
      run: async (ctx, query) => {
        const page = await s.claims.list(ctx.scope, claimFiltersOf(query), pageOptions(query));
        return listResponse('/v1/claims', page.data, page.hasMore);
      },
    }),
    readTool({
      name: 'get_claim',
      title: 'Get a krafa',
      description:
        "Read one krafa (clm_…): status, amount and amount_paid (whole ISK), payer, due date (gjalddagi), final due date (eindagi), terms, the bank's claim key once issued, and the payment once paid.",
      input: idInput('claim', 'clm'),
      output: ClaimSchema,
      run: (ctx, { id }) => s.claims.retrieve(ctx.scope, id),
    }),
  ];
}
