import type { Locale } from './locale';

// Iceland keeps UTC all year; the zone is named so the rule stays the country's, not the server's.
const FORMATS: Record<Locale, Intl.DateTimeFormat> = {
  is: new Intl.DateTimeFormat('is-IS', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'Atlantic/Reykjavik',
  }),
  en: new Intl.DateTimeFormat('en-GB', {
    dateStyle: 'medium',
    timeStyle: 'short',
    timeZone: 'Atlantic/Reykjavik',
  }),
};

/**
 * A moment as each language writes it, in Iceland's time: `2. des. 2026, 17:05` and
 * `2 Dec 2026, 17:05`; a dash for none.
 */
export function formatLocalTime(value: Date | null | undefined, locale: Locale): string {
  return value ? FORMATS[locale].format(value) : '—';
}
