import type { MailMessage } from '../../adapters/mail/mailer';
import type { CollectionClaimRow, CollectionStepRow } from '../../db/collection';
import type { StepKind } from '../../domain/collection-policy';
import { formatIsk } from '../../domain/isk';

/**
 * The payer's letter for a collection step, in Icelandic (decision 0246). A warning carries what
 * Collection Act 95/2008 art. 7 lists: who claims and who owes, with kennitölur and addresses, the
 * krafa, its principal and each addition, where to pay and what follows if it stays unpaid.
 */

const TITLE: Record<StepKind, string> = {
  overdue: 'Krafa í vanskilum',
  warning: 'Innheimtuviðvörun',
  letter: 'Milliinnheimtubréf',
  reminder: 'Ítrekun milliinnheimtubréfs',
  call: 'Símtal í milliinnheimtu',
  hand_off: 'Krafa send til innheimtuaðila',
  close: 'Innheimtu kröfu lokið',
};

const NEXT: Record<StepKind, string> = {
  overdue: 'innheimtuviðvörun verður send',
  warning: 'krafan fer í milliinnheimtu og kostnaður bætist við',
  letter: 'krafan verður ítrekuð og kostnaður bætist við',
  reminder: 'frekari innheimtuaðgerðir hefjast og kostnaður bætist við',
  call: 'frekari innheimtuaðgerðir hefjast og kostnaður bætist við',
  hand_off: 'krafan verður send innheimtuaðila, sem getur hafið löginnheimtu',
  close: 'krafan stendur ógreidd til niðurfellingardags',
};

const kr = (n: number) => formatIsk(n, 'is');
const kt = (k: string) => `${k.slice(0, 6)}-${k.slice(6)}`;

export interface LetterParties {
  claimant: { name: string; kennitala: string; address: string | null };
  payer: { name: string | null; kennitala: string; address: string | null };
}

export function collectionLetter(input: {
  to: string;
  claim: CollectionClaimRow;
  step: CollectionStepRow;
  parties: LetterParties;
  breakdown: {
    principal: number;
    interest: number;
    costs: { label: string; amount: number }[];
    total: number;
  };
  /** Where the payer sees the krafa in Skil. */
  pageUrl: string | null;
  /** The next step and its day, when one is planned. */
  next: { kind: StepKind; on: string } | null;
  payWithinDays: number | null;
}): MailMessage {
  const { claim, step, parties, breakdown } = input;
  const lines = [
    `${TITLE[step.kind]} — krafa nr. ${claim.claim_number}`,
    '',
    `Kröfuhafi: ${parties.claimant.name}, kt. ${kt(parties.claimant.kennitala)}${parties.claimant.address ? `, ${parties.claimant.address}` : ''}`,
    `Greiðandi: ${parties.payer.name ?? ''}${parties.payer.name ? ', ' : ''}kt. ${kt(parties.payer.kennitala)}${parties.payer.address ? `, ${parties.payer.address}` : ''}`,
    '',
    `Krafa: ${claim.description ?? `nr. ${claim.claim_number}`}; gjalddagi ${claim.due_date}, eindagi ${claim.final_due_date}.`,
    '',
    `Staða ${step.taken_on}:`,
    `  Höfuðstóll: ${kr(breakdown.principal)}`,
    `  Dráttarvextir: ${kr(breakdown.interest)}`,
    ...breakdown.costs.map((c) => `  ${c.label}: ${kr(c.amount)}`),
    `  Samtals: ${kr(breakdown.total)}`,
    '',
    'Greiða má kröfuna í netbanka greiðanda, þar sem hún birtist með þessari fjárhæð, eða í hvaða banka sem er.',
    ...(input.payWithinDays !== null
      ? [`Vinsamlegast greiðið innan ${input.payWithinDays} daga frá dagsetningu þessarar viðvörunar.`]
      : []),
    ...(input.next ? [`Verði krafan ekki greidd: ${NEXT[step.kind]} (${input.next.on}).`] : []),
    ...(input.pageUrl ? ['', `Sundurliðun kröfunnar: ${input.pageUrl}`] : []),
  ];
  return {
    to: input.to,
    subject: `${TITLE[step.kind]}: krafa nr. ${claim.claim_number} frá ${parties.claimant.name}`,
    text: lines.join('\n'),
  };
}

/** The label of each cost on a krafa, for letters and the payer page. */
export function costLabels(
  /** The krafa's own costs (notice fee, default charge, other costs), whole ISK. */
  ownCosts: number,
  steps: Pick<CollectionStepRow, 'kind' | 'cost' | 'status'>[],
): { label: string; amount: number }[] {
  const out: { label: string; amount: number }[] = [];
  if (ownCosts > 0) out.push({ label: 'Seðilgjald og vanskilagjald kröfunnar', amount: ownCosts });
  for (const s of steps)
    if (s.status === 'taken' && s.cost > 0) out.push({ label: TITLE[s.kind], amount: s.cost });
  return out;
}
