/**
 * What the handoff routes read from a request: the list filters. (An agent's reply is made an
 * internal message by `outbound/message.ts`, as the bot writing first is.)
 */
import type { Context } from 'koa';
import type { SchemaRegistry } from '../../shared/schemas.ts';
import type { HandoffFilters } from './handoff-store.ts';
import { queryOf } from './paging.ts';

/** The checked filters of `GET /v2/handoffs` (400 `BW_ERR_SCHEMA` naming a bad one). */
export function filtersOf(ctx: Context, schemas: SchemaRegistry): HandoffFilters {
  const { app_id, status, queue } = queryOf<HandoffFilters>(ctx, schemas, 'http/handoffs-query');
  return {
    ...(app_id !== undefined ? { app_id: app_id.toLowerCase() } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(queue !== undefined ? { queue } : {}),
  };
}
