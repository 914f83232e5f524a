/**
 * The conversations list's filters, kept in the page's URL query (so a filtered view can be
 * shared and survives a reload) and turned into the admin API's query
 * (`GET /v2/bots/:app_id/conversations`: `channel_type`, `from`, `to`, `q`, `chat_id`, `limit`,
 * `after`). Dates are whole days in the operator's time zone: `from` is the start of its day, `to`
 * the start of the day after, so both days are included. Plain TypeScript (no DOM).
 */
import type { ConversationQuery } from '../../api/types.ts';

export interface ConversationFilters {
  /** `telegram`, `whatsapp`, `web`; absent for every channel. */
  channelType?: string;
  /** A day, `YYYY-MM-DD`: last message on or after its start. */
  from?: string;
  /** A day, `YYYY-MM-DD`: last message before the end of it. */
  to?: string;
  /** Words searched in the conversation's messages. */
  q?: string;
  /** The platform chat (Telegram chat id, WhatsApp number, web visitor id). */
  chatId?: string;
}

/** The URL query parameter of each filter. */
const URL_KEYS = {
  channelType: 'channel',
  from: 'from',
  to: 'to',
  q: 'q',
  chatId: 'chat',
} as const satisfies Record<keyof ConversationFilters, string>;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The start of `day` in local time; undefined for anything but a real `YYYY-MM-DD` day. */
export function dayStart(day: string): Date | undefined {
  const match = DAY.exec(day);
  if (!match) return undefined;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const start = new Date(year, month - 1, date);
  // new Date rolls 2026-02-31 over into March: such a day is not one.
  return start.getFullYear() === year && start.getMonth() === month - 1 && start.getDate() === date
    ? start
    : undefined;
}

function clean(value: string | null | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** The filters a page URL names; unknown or empty parameters are left out. */
export function filtersFromSearch(search: URLSearchParams): ConversationFilters {
  const filters: ConversationFilters = {};
  for (const [field, key] of Object.entries(URL_KEYS) as [keyof ConversationFilters, string][]) {
    const value = clean(search.get(key));
    if (value !== undefined) filters[field] = value;
  }
  return filters;
}

/** The page URL's query for `filters`: only the filters set, in a stable order. */
export function filtersToSearch(filters: ConversationFilters): URLSearchParams {
  const search = new URLSearchParams();
  for (const [field, key] of Object.entries(URL_KEYS) as [keyof ConversationFilters, string][]) {
    const value = clean(filters[field]);
    if (value !== undefined) search.set(key, value);
  }
  return search;
}

/** What is wrong with the filters, in words for the form; undefined when they can be used. */
export function filtersProblem(filters: ConversationFilters): string | undefined {
  const from = filters.from === undefined ? undefined : dayStart(filters.from);
  const to = filters.to === undefined ? undefined : dayStart(filters.to);
  if (filters.from !== undefined && !from) return 'The “from” date is not a day.';
  if (filters.to !== undefined && !to) return 'The “to” date is not a day.';
  if (from && to && from > to) return 'The “from” date is after the “to” date.';
  return undefined;
}

/**
 * The admin API query for one page of conversations.
 * @param limit conversations per page (the API allows 1 to 100).
 * @param after the previous page's `next_after`.
 */
export function conversationsApiQuery(
  filters: ConversationFilters,
  limit: number,
  after?: string,
): ConversationQuery {
  const query: ConversationQuery = { limit };
  if (filters.channelType) query.channel_type = filters.channelType;
  const from = filters.from === undefined ? undefined : dayStart(filters.from);
  if (from) query.from = from.toISOString();
  const to = filters.to === undefined ? undefined : dayStart(filters.to);
  if (to) {
    const next = new Date(to.getFullYear(), to.getMonth(), to.getDate() + 1);
    query.to = next.toISOString();
  }
  if (filters.q) query.q = filters.q;
  if (filters.chatId) query.chat_id = filters.chatId;
  if (after) query.after = after;
  return query;
}
