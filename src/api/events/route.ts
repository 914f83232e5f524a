/**
 * `GET /v2/events` (admin auth): the console's live stream, as Server-Sent Events. Resumes after
 * the `Last-Event-ID` header (what EventSource sends when it reconnects) or `?last_event_id=`;
 * `?app_id=` (repeatable) and `?types=message,bot` filter; an agent gets only its assigned bots'
 * events. See docs/events.md.
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { BotwireError } from '../../shared/errors.ts';
import { EVENT_TYPES, isEventType } from '../../shared/events/types.ts';
import type { Edge } from '../edge.ts';
import type { EventFilter } from './sse-client.ts';
import { isStreamId } from '../../shared/stream-ids.ts';
import { UUID } from '../ids.ts';

function refused(path: string, message: string): BotwireError {
  return new BotwireError('BW_ERR_SCHEMA', `${path} ${message}`, {
    details: { problems: [{ path, message }] },
  });
}

function listOf(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(',')).filter(Boolean);
}

function filterOf(ctx: Context): EventFilter {
  const appIds = listOf(ctx.query.app_id);
  const types = listOf(ctx.query.types);
  for (const appId of appIds) {
    if (!UUID.test(appId)) throw refused('/query/app_id', 'must be app ids');
  }
  for (const type of types) {
    if (!isEventType(type))
      throw refused('/query/types', `must be event types (${EVENT_TYPES.join(', ')})`);
  }
  return {
    ...(appIds.length > 0 ? { appIds: new Set(appIds.map((id) => id.toLowerCase())) } : {}),
    ...(types.length > 0 ? { types: new Set(types) } : {}),
  };
}

/** The header wins: EventSource keeps the first URL, and sends its latest id in the header. */
function resumeOf(ctx: Context): string | undefined {
  const header = ctx.get('last-event-id').trim();
  const query = ctx.query.last_event_id;
  const raw = header || (typeof query === 'string' ? query.trim() : '');
  if (raw === '') return undefined;
  if (!isStreamId(raw))
    throw refused(
      header ? '/headers/last-event-id' : '/query/last_event_id',
      'must be an event id',
    );
  return raw;
}

/**
 * An agent's stream keeps to its assigned bots: the bots it asked for among those, or all of
 * those; events of no bot (none today carry none, but a filter must not let them through) never.
 */
function narrowed(ctx: Context, filter: EventFilter): EventFilter {
  const bots = ctx.state.principal?.bots ?? 'all';
  if (bots === 'all') return filter;
  const assigned = new Set(bots.map((id) => id.toLowerCase()));
  const appIds = filter.appIds
    ? new Set([...filter.appIds].filter((id) => assigned.has(id)))
    : assigned;
  return { ...filter, appIds };
}

export function eventRoutes(router: Router, edge: Edge): void {
  router.get('/v2/events', async (ctx) => {
    const filter = narrowed(ctx, filterOf(ctx));
    const resume = resumeOf(ctx);
    await edge.eventHub.open(ctx.req, ctx.res, { filter, ...(resume ? { resume } : {}) });
    // The response is the hub's from here on; Koa must not write a body or end it.
    ctx.respond = false;
  });
}
