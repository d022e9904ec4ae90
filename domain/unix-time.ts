/** Unix seconds, the API's time format (spec §2.1). */
export function unix(date: Date): number;
export function unix(date: Date | null): number | null;
export function unix(date: Date | null): number | null {
  return date === null ? null : Math.floor(date.getTime() / 1000);
}
