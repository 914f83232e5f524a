/**
 * Days as botwire counts them (analytics rollups and ranges, LLM daily budgets, retention): UTC
 * calendar days, written `YYYY-MM-DD`.
 */

export const DAY_MS = 86_400_000;

/** The UTC day of `at` (a Date or epoch milliseconds; now by default). */
export function dayOf(at: Date | number = Date.now()): string {
  return new Date(at).toISOString().slice(0, 10);
}
