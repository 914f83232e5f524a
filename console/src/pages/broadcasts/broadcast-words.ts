/**
 * A broadcast's counts and plan in words (plain TypeScript, unit tested): why recipients were
 * skipped, and how a WhatsApp template broadcast fits its number's daily messaging limit
 * (docs/outbound.md, "The daily messaging limit").
 */

/** A WhatsApp template broadcast against its number's messaging limit. */
export interface LimitPlan {
  limit: number | 'unlimited';
  used: number;
  starting: number;
  days: { from: string; users: number }[];
}

const when = (iso: string) =>
  new Date(iso).toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });

/** How the broadcast fits its number's daily limit, in words; empty when it starts no conversation. */
export function limitPlanInWords(plan: LimitPlan | undefined): string {
  if (!plan || plan.starting === 0) return '';
  const n = (x: number) => x.toLocaleString('en');
  const starts = `It writes first to ${n(plan.starting)} users whose 24-hour window is closed`;
  if (plan.limit === 'unlimited') return `${starts}; this number has no daily limit.`;
  const limit = `this number may do that for ${n(plan.limit)} users a day, and did for ${n(plan.used)} in the last 24 hours`;
  if (plan.used + plan.starting <= plan.limit) return `${starts}; ${limit}: all of them at once.`;
  const days = plan.days.map((d) => `${n(d.users)} from ${when(d.from)}`).join(', ');
  return `${starts}; ${limit}. It is sent over ${plan.days.length} day${plan.days.length === 1 ? '' : 's'}: ${days}.`;
}

/** What a skip reason means, in words. */
export const SKIP_REASONS: Record<string, string> = {
  opted_out: 'opted out',
  window_closed: 'WhatsApp window closed',
  missing_value: 'a value missing',
  invalid_value: 'a value WhatsApp refuses',
  no_conversation: 'never wrote to the bot',
  duplicate: 'listed twice',
  cancelled: 'cancelled',
};

export const skippedInWords = (skipped: Record<string, number>): string =>
  Object.entries(skipped)
    .map(([reason, n]) => `${n} ${SKIP_REASONS[reason] ?? reason}`)
    .join(', ') || 'none';
