/**
 * Pages of the admin API: `limit` (1 to 100, default 20) and `after` (the `next_after` of the
 * previous page) in the query; `{items, next_after}` in the answer. A list's filters are the rest
 * of its query, checked against the list's query schema.
 */
import type { Context } from 'koa';
import { BotwireError } from '../../shared/errors.ts';
import type { SchemaRegistry } from '../../shared/schemas.ts';

export interface Page<T> {
  items: T[];
  /** Pass as `after` for the next page; null on the last page. */
  next_after: string | null;
}

/** The `limit` of a page: 1 to 100, default 20. */
export function limitOf(ctx: Context): number {
  const raw = ctx.query.limit;
  if (raw === undefined) return 20;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new BotwireError('BW_ERR_SCHEMA', 'limit must be an integer from 1 to 100', {
      details: {
        problems: [{ path: '/query/limit', message: 'must be an integer from 1 to 100' }],
      },
    });
  }
  return limit;
}

/**
 * The `after` cursor of a page: absent, or the `next_after` of an earlier page (`shape` says what
 * one looks like). Anything else is refused rather than read as "no more pages".
 */
export function afterOf(ctx: Context, shape: RegExp): string | undefined {
  const raw = ctx.query.after;
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !shape.test(raw)) {
    throw new BotwireError('BW_ERR_SCHEMA', 'after must be the next_after of an earlier page', {
      details: {
        problems: [{ path: '/query/after', message: 'must be the next_after of an earlier page' }],
      },
    });
  }
  return raw;
}

/** A page of `rows` fetched with `limit + 1`: the extra row only says that another page follows. */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, next_after: rows.length > limit && last ? cursorOf(last) : null };
}

/** The query checked against `schema` (400 `BW_ERR_SCHEMA` naming each bad parameter). */
export function queryOf<T>(ctx: Context, schemas: SchemaRegistry, schema: string): T {
  const result = schemas.validate<T>(schema, { ...ctx.query });
  if (!result.ok) {
    const problems = result.problems.map((p) => ({ ...p, path: `/query${p.path}` }));
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      `the query fails its schema: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
      { details: { problems } },
    );
  }
  return result.value;
}
