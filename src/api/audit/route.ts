/**
 * `GET /v2/audit`: the audit log newest first, filtered by actor, action, bot and time, paged by
 * `after` (docs/audit.md).
 */
import type { Router } from '@koa/router';
import type { Context } from 'koa';
import { BotwireError } from '../../shared/errors.ts';
import { afterOf, limitOf, pageOf } from '../admin/paging.ts';
import type { Edge } from '../edge.ts';
import { listAudit } from './store.ts';
import { UUID } from '../ids.ts';

const ROW_ID = /^[1-9]\d{0,18}$/;
/** An RFC 3339 date-time with a zone, as OpenAPI's `format: date-time` says. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

function problem(name: string, message: string): BotwireError {
  return new BotwireError('BW_ERR_SCHEMA', `${name} ${message}`, {
    details: { problems: [{ path: `/query/${name}`, message }] },
  });
}

/** A text filter: absent, or one value of 1 to `max` characters. */
function textOf(ctx: Context, name: string, max: number): string | undefined {
  const raw = ctx.query[name];
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || raw.length > max || raw.includes('\u0000'))
    throw problem(name, `must be one value of at most ${max} characters`);
  return raw;
}

function timeOf(ctx: Context, name: string): Date | undefined {
  const raw = textOf(ctx, name, 40);
  if (raw === undefined) return undefined;
  const at = new Date(raw);
  if (!DATE_TIME.test(raw) || Number.isNaN(at.getTime()))
    throw problem(name, 'must be a date-time such as 2026-11-26T09:00:00Z');
  return at;
}

export function auditRoutes(router: Router, edge: Edge): void {
  router.get('/v2/audit', async (ctx) => {
    const limit = limitOf(ctx);
    const after = afterOf(ctx, ROW_ID);
    const appId = textOf(ctx, 'app_id', 36);
    if (appId !== undefined && !UUID.test(appId)) throw problem('app_id', 'must be a uuid');
    const actor = textOf(ctx, 'actor', 320);
    const action = textOf(ctx, 'action', 100);
    const rows = await listAudit(edge.db, {
      limit,
      ...(after !== undefined ? { after } : {}),
      ...(appId !== undefined ? { appId } : {}),
      ...(actor !== undefined ? { actor } : {}),
      ...(action !== undefined ? { action } : {}),
      ...optional('since', timeOf(ctx, 'since')),
      ...optional('until', timeOf(ctx, 'until')),
    });
    ctx.body = pageOf(rows, limit, (row) => row.id);
  });
}

function optional<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}
