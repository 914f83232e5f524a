/**
 * What the handoff routes read from a request: the caller, the list filters, and an agent's
 * reply as an internal message.
 */
import type { Context } from 'koa';
import { mediaMessage, type OutgoingMedia } from '../../shared/media-message.ts';
import type { InternalMessage } from '../../shared/messages.ts';
import type { SchemaRegistry } from '../../shared/schemas.ts';
import type { HandoffFilters } from './handoff-store.ts';
import { queryOf } from './paging.ts';

/** The agent's reply as the body gives it (schemas/http/handoff-message.json). */
export type AgentMessage =
  | { message_type: 'text'; text: string }
  | { message_type: 'button'; text: string; buttons: { id: string; title: string }[] }
  | OutgoingMedia;

/** An agent's reply as the internal message channel sends. */
export function toInternal(message: AgentMessage): InternalMessage {
  switch (message.message_type) {
    case 'text':
    case 'button':
      return message;
    case 'image':
    case 'document':
      return mediaMessage(message);
  }
}

/** The checked filters of `GET /v2/handoffs` (400 `BW_ERR_SCHEMA` naming a bad one). */
export function filtersOf(ctx: Context, schemas: SchemaRegistry): HandoffFilters {
  const { app_id, status, queue } = queryOf<HandoffFilters>(ctx, schemas, 'http/handoffs-query');
  return {
    ...(app_id !== undefined ? { app_id: app_id.toLowerCase() } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(queue !== undefined ? { queue } : {}),
  };
}
