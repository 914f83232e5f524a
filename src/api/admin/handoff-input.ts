/**
 * What the handoff routes read from a request: the caller, the list filters, and an agent's
 * reply as an internal message.
 */
import type { Context } from 'koa';
import { BotwireError } from '../../shared/errors.ts';
import type { InternalMessage } from '../../shared/messages.ts';
import type { SchemaRegistry } from '../../shared/schemas.ts';
import type { HandoffFilters } from './handoff-store.ts';

/** The agent's reply as the body gives it (schemas/http/handoff-message.json). */
export type AgentMessage =
  | { message_type: 'text'; text: string }
  | { message_type: 'button'; text: string; buttons: { id: string; title: string }[] }
  | { message_type: 'image'; url: string; caption?: string }
  | { message_type: 'document'; url: string; caption?: string; filename?: string };

/** An agent's reply as the internal message channel sends. */
export function toInternal(message: AgentMessage): InternalMessage {
  switch (message.message_type) {
    case 'text':
    case 'button':
      return message;
    case 'image':
      return {
        message_type: 'image',
        media: { url: message.url },
        ...(message.caption ? { caption: message.caption } : {}),
      };
    case 'document':
      return {
        message_type: 'document',
        media: { url: message.url },
        ...(message.caption ? { caption: message.caption } : {}),
        ...(message.filename ? { filename: message.filename } : {}),
      };
  }
}

/** The caller: the principal authentication set, or the older admin-key/console actor. */
export function callerOf(ctx: Context): {
  actor: string;
  accountId: string | null;
  bots: 'all' | string[];
} {
  const principal = ctx.state.principal;
  if (principal) return principal;
  const actor = ctx.state.actor;
  return {
    actor: typeof actor === 'string' && actor !== '' ? actor : 'admin-key',
    accountId: null,
    bots: 'all',
  };
}

/** The checked filters of `GET /v2/handoffs` (400 `BW_ERR_SCHEMA` naming a bad one). */
export function filtersOf(ctx: Context, schemas: SchemaRegistry): HandoffFilters {
  const result = schemas.validate<HandoffFilters>('http/handoffs-query', { ...ctx.query });
  if (!result.ok) {
    const problems = result.problems.map((p) => ({ ...p, path: `/query${p.path}` }));
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      `the query fails its schema: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
      { details: { problems } },
    );
  }
  const { app_id, status, queue } = result.value;
  return {
    ...(app_id !== undefined ? { app_id: app_id.toLowerCase() } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(queue !== undefined ? { queue } : {}),
  };
}
