import type { Browser } from 'playwright-core';
import { claimAccount, claimIdOf, type CreateClaimDetails } from '../../adapters/banks/claims-api';
import type { IobwsClaimsClient } from '../../adapters/banks/iobws-claims-client';
import { launchChromium, openPage } from '../helpers/browser';
import { startValidatedBank, type ValidatedBank } from '../helpers/simulated-bank';

/**
 * The payer's online bank in headless Chromium: Skil's real client issues two kröfur at the
 * simulated bank; the payer enters their kennitala, sees each with the amount due today (default
 * interest included), pays part of one and all of the other, and the payments come back through
 * the standard's claim-transactions endpoint. Every /v1 exchange is validated against the YAML.
 */

const PAYOR = '3108962099';
const TODAY = new Date('2026-11-21T12:00:00Z');

let vb: ValidatedBank;
let client: IobwsClaimsClient;
let browser: Browser;

beforeAll(async () => {
  [vb, browser] = await Promise.all([startValidatedBank({ now: () => TODAY }), launchChromium()]);
  client = vb.client();
});
afterAll(async () => {
  client?.close();
  await browser?.close();
  await vb?.bank.stop();
});

test('enter a kennitala, see the amount due today, pay part and all, see the payments in claim transactions', async () => {
  // Overdue: due 1 Oct, final due 15 Oct; interest from the due date, actual/360, 18 %:
  // 1 Oct → 21 Nov = 51 days; 50 000 × 18 % × 51/360 = 1 275. Plus 250 notice fee: 51 525.
  const overdue: CreateClaimDetails = {
    claimKey: { claimantId: '5510730339', account: claimAccount('0001', 1), dueDate: '2026-10-01' },
    payorId: PAYOR,
    templateCode: '001',
    amount: 50_000,
    finalDueDate: '2026-10-15',
    paymentFee: { printingFee: 390, paperlessFee: 250 },
    defaultInterest: {
      referenceDate: 'DueDate',
      baseAmountType: 'Amount',
      baseTimeType: '360',
      percentage: 18,
    },
  };
  // Not yet due, partial payment allowed: 20 000.
  const upcoming: CreateClaimDetails = {
    claimKey: { claimantId: '4710080280', account: claimAccount('0101', 2), dueDate: '2026-12-01' },
    payorId: PAYOR,
    templateCode: 'A01',
    amount: 20_000,
    finalDueDate: '2026-12-15',
    isPartialPaymentAllowed: true,
  };
  await client.createClaim(overdue, { idempotencyIdentity: 'e2e:overdue' });
  await client.createClaim(upcoming, { idempotencyIdentity: 'e2e:upcoming' });
  const overdueId = claimIdOf(overdue.claimKey);
  const upcomingId = claimIdOf(upcoming.claimKey);

  const { page, errors, blocked } = await openPage(browser, vb.bank.url);
  try {
    await page.goto(vb.bank.payerUrl);
    await page.getByLabel('Kennitala').fill(PAYOR);
    await Promise.all([
      page.waitForURL(/\/bank\/payor/),
      page.getByRole('button', { name: 'Sýna kröfur' }).click(),
    ]);

    const row = (id: string) => page.locator(`tr[data-claim-id="${id}"]`);
    // The claimant by name, as a bank shows it (4710080280 is Landsbankinn hf. in the registry); a
    // claimant the registry does not know keeps its kennitala.
    const claimant = (id: string) => row(id).locator('[data-claimant]');
    expect(await claimant(upcomingId).innerText()).toBe('Landsbankinn hf.');
    expect(await claimant(upcomingId).getAttribute('title')).toBe('kt. 471008-0280');
    expect(await claimant(overdueId).innerText()).toBe('kt. 551073-0339');
    expect(await row(overdueId).locator('[data-amount-due]').innerText()).toBe('51.525 kr.');
    expect(await row(overdueId).getByText('1.525 kr.', { exact: true }).count()).toBe(1); // costs: 250 + 1 275
    expect(await row(upcomingId).locator('[data-amount-due]').innerText()).toBe('20.000 kr.');

    // Part of the claim that allows it.
    await row(upcomingId).getByLabel(`Upphæð ${upcomingId}`).fill('5.000');
    await Promise.all([
      page.waitForURL(/paid=1/),
      row(upcomingId).getByRole('button', { name: 'Greiða hluta' }).click(),
    ]);
    expect(await row(upcomingId).locator('[data-amount-due]').innerText()).toBe('15.000 kr.');

    // The overdue one in full.
    await Promise.all([
      page.waitForURL(/paid=1/),
      row(overdueId)
        .getByRole('button', { name: `Greiða ${overdueId}` })
        .click(),
    ]);
    expect(await page.getByText('Greitt: 1 krafa.').count()).toBe(1);
    expect(await row(overdueId).count()).toBe(0);

    // The English page shows the rest.
    await page.getByRole('link', { name: 'English' }).click();
    expect(await row(upcomingId).locator('[data-amount-due]').innerText()).toBe('ISK 15,000');
    expect(errors).toEqual([]);
    expect(blocked).toEqual([]);
  } finally {
    await page.context().close();
  }

  const paid = await client.getClaimTransactions(overdueId);
  expect(paid.items).toEqual([
    expect.objectContaining({
      paymentType: 'Complete',
      payorId: PAYOR,
      amount: 50_000,
      noticeChargeAmountPaid: 250,
      defaultInterestAmountPaid: 1_275,
      totalAmountPaid: 51_525,
      valueDate: '2026-11-21',
    }),
  ]);
  expect((await client.getClaim(overdueId)).claimStatus).toBe('Paid');
  const part = await client.getClaimTransactions(upcomingId);
  expect(part.items).toEqual([
    expect.objectContaining({ paymentType: 'Partial', amount: 5_000, totalAmountPaid: 5_000 }),
  ]);
  expect(await client.getClaim(upcomingId)).toMatchObject({
    claimStatus: 'Unpaid',
    isPartiallyPaid: true,
    totalAmountDue: 15_000,
  });
  expect(vb.problems()).toEqual([]);
});
