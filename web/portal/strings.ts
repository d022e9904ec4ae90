import type { Locale } from '../../domain/locale';

/** The customer portal's texts in Icelandic and English. */
export const STRINGS = {
  is: {
    title: 'Áskriftin þín',
    status: {
      active: 'Virk',
      trialing: 'Prufutímabil',
      past_due: 'Greiðsla mistókst',
      unpaid: 'Ógreidd',
      incomplete: 'Ófrágengin',
    } as Record<string, string>,
    nextCharge: (a: string, d: string) => `Næsta greiðsla: ${a} þann ${d}`,
    endsAt: (d: string) => `Áskriftin lýkur ${d}`,
    history: 'Greiðslusaga',
    none: 'Engar greiðslur enn.',
    card: 'Greiðslukort',
    cardOnFile: (l: string) => `Kort sem endar á ${l}`,
    cardNumber: 'Kortanúmer',
    expiry: 'Gildistími (MM/ÁÁ)',
    cvc: 'Öryggisnúmer (CVC)',
    updateCard: 'Uppfæra kort',
    cancel: 'Segja upp',
    atPeriodEnd: 'Í lok tímabils',
    now: 'Strax',
    reason: 'Ástæða (valfrjálst)',
    switchPrice: 'Skipta um áskriftarleið',
    switch: 'Skipta',
    back: 'Til baka',
    saved: 'Breytingin var vistuð.',
    expired: 'Þessi hlekkur er útrunninn eða hefur þegar verið notaður.',
    noSubscriptions: 'Engin virk áskrift.',
    paid: 'Greitt',
    failed: 'Mistókst',
    testMode: 'Prófunarhamur',
  },
  en: {
    title: 'Your subscription',
    status: {
      active: 'Active',
      trialing: 'Trial',
      past_due: 'Payment failed',
      unpaid: 'Unpaid',
      incomplete: 'Incomplete',
    } as Record<string, string>,
    nextCharge: (a: string, d: string) => `Next charge: ${a} on ${d}`,
    endsAt: (d: string) => `Ends on ${d}`,
    history: 'Payment history',
    none: 'No payments yet.',
    card: 'Payment card',
    cardOnFile: (l: string) => `Card ending in ${l}`,
    cardNumber: 'Card number',
    expiry: 'Expiry (MM/YY)',
    cvc: 'Security code (CVC)',
    updateCard: 'Update card',
    cancel: 'Cancel subscription',
    atPeriodEnd: 'At the end of the period',
    now: 'Now',
    reason: 'Reason (optional)',
    switchPrice: 'Switch plan',
    switch: 'Switch',
    back: 'Back',
    saved: 'Your change was saved.',
    expired: 'This link has expired or was already used.',
    noSubscriptions: 'No active subscription.',
    paid: 'Paid',
    failed: 'Failed',
    testMode: 'Test mode',
  },
};

export type PortalStrings = (typeof STRINGS)[Locale];

/** A date as the customer's locale writes it, in Reykjavik time. */
export function dateOf(d: Date, locale: Locale): string {
  return d.toLocaleDateString(locale === 'is' ? 'is-IS' : 'en-GB', {
    timeZone: 'Atlantic/Reykjavik',
    dateStyle: 'medium',
  });
}
