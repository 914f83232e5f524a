/**
 * Every server call of the inbox (the handoff routes of the admin API, docs/handoff.md), through
 * the console's one client (api/client.ts), and the query keys live events invalidate.
 */
import { api, unwrap } from '../../api/client.ts';
import type {
  AgentMessage,
  HandoffDetail,
  HandoffItem,
  HandoffPage,
  HandoffQuery,
  WhatsAppTemplate,
} from '../../api/types.ts';
import { withQuery } from '../ops-shared/page-query.ts';

/** Handoffs per page of the inbox. */
export const HANDOFFS_PAGE = 50;

export async function listHandoffs(filters: HandoffQuery, after?: string): Promise<HandoffPage> {
  return unwrap(
    await api.GET('/v2/handoffs', {
      params: { query: { ...filters, limit: HANDOFFS_PAGE, after: after || undefined } },
    }),
  );
}

export async function getHandoff(id: string): Promise<HandoffDetail> {
  return unwrap(await api.GET('/v2/handoffs/{id}', { params: { path: { id } } }));
}

const path = (id: string) => ({ params: { path: { id } } });

export async function claimHandoff(id: string): Promise<HandoffItem> {
  return unwrap(await api.POST('/v2/handoffs/{id}/claim', path(id)));
}

export async function releaseHandoff(id: string): Promise<HandoffItem> {
  return unwrap(await api.POST('/v2/handoffs/{id}/release', path(id)));
}

/** Sends the user a message; the same `clientMessageId` again sends nothing more. */
export async function sendReply(
  id: string,
  clientMessageId: string,
  message: AgentMessage,
): Promise<void> {
  unwrap(
    await api.POST('/v2/handoffs/{id}/messages', {
      ...path(id),
      body: { client_message_id: clientMessageId, message },
    }),
  );
}

export async function showTyping(id: string): Promise<void> {
  unwrap(await api.POST('/v2/handoffs/{id}/typing', path(id)));
}

export async function addNote(id: string, text: string): Promise<void> {
  unwrap(await api.POST('/v2/handoffs/{id}/notes', { ...path(id), body: { text } }));
}

export async function handBack(id: string, state: string): Promise<void> {
  unwrap(await api.POST('/v2/handoffs/{id}/return', { ...path(id), body: { state } }));
}

export async function closeHandoff(id: string): Promise<void> {
  unwrap(await api.POST('/v2/handoffs/{id}/close', path(id)));
}

/** The live events the inbox follows: handoffs, and transcript rows for an open one. */
export function inboxEventsUrl(types: string, appId?: string): string {
  return withQuery('/v2/events', { types, app_id: appId });
}

export const inboxKeys = {
  all: ['handoffs'] as const,
  list: (filters: HandoffQuery) => ['handoffs', 'list', filters] as const,
  detail: (id: string) => ['handoffs', 'detail', id] as const,
};

/** The query key of a bot's templates: the bot page's list and every template picker share it. */
export const templatesKey = (appId: string) => ['templates', appId] as const;

/** The bot's WhatsApp templates as last synced (what an agent may send once a window closed). */
export async function listTemplates(appId: string): Promise<WhatsAppTemplate[]> {
  return unwrap(
    await api.GET('/v2/bots/{app_id}/templates', { params: { path: { app_id: appId } } }),
  ).items;
}
