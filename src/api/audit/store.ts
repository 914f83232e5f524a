/**
 * The `audit_log` table (migrations/20261126091000_audit_log.ts): writing a row, reading a page
 * newest first with filters, and deleting rows past retention in small batches.
 */
import type { Knex } from '../../shared/db.ts';
import { UUID } from '../ids.ts';
import { deleteInBatches } from '../retention-pruner.ts';

/** A summary larger than this (bytes of JSON) is replaced by a note saying so. */
export const MAX_SUMMARY_BYTES = 16_384;

/** One change, as the audit middleware records it. */
export interface AuditEntry {
  actor: string;
  accountId: string | null;
  address: string;
  action: string;
  targetType: string;
  targetId: string | null;
  appId: string | null;
  /** Already redacted. */
  summary: Record<string, unknown>;
}

/** A row as `GET /v2/audit` shows it. */
export interface AuditRow {
  id: string;
  at: string;
  actor: string;
  account_id: string | null;
  address: string;
  action: string;
  target_type: string;
  target_id: string | null;
  app_id: string | null;
  summary: Record<string, unknown>;
}

/** The columns of a row as `GET /v2/audit` shows it (its OpenAPI schema requires each). */
export const AUDIT_COLUMNS = [
  'id',
  'at',
  'actor',
  'account_id',
  'address',
  'action',
  'target_type',
  'target_id',
  'app_id',
  'summary',
] as const satisfies readonly (keyof AuditRow)[];

export interface AuditFilter {
  actor?: string;
  action?: string;
  appId?: string;
  /** Inclusive lower bound of `at`. */
  since?: Date;
  /** Exclusive upper bound of `at`. */
  until?: Date;
  /** Rows with a smaller id than this (the cursor of the previous page). */
  after?: string;
  limit: number;
}

/** Writes one audit row. */
export async function writeAudit(db: Knex, entry: AuditEntry): Promise<void> {
  let summary = JSON.stringify(entry.summary);
  if (Buffer.byteLength(summary) > MAX_SUMMARY_BYTES) {
    summary = JSON.stringify({ truncated: true, bytes: Buffer.byteLength(summary) });
  }
  await db('audit_log').insert({
    actor: entry.actor,
    account_id: entry.accountId !== null && UUID.test(entry.accountId) ? entry.accountId : null,
    address: entry.address,
    action: entry.action,
    target_type: entry.targetType,
    target_id: entry.targetId,
    // The column is a uuid: an id of another shape (none today) is kept in target_id only.
    app_id: entry.appId !== null && UUID.test(entry.appId) ? entry.appId : null,
    summary,
  });
}

/** Rows matching `filter`, newest first, `limit + 1` of them (the extra one says more follow). */
export async function listAudit(db: Knex, filter: AuditFilter): Promise<AuditRow[]> {
  const query = db('audit_log')
    .select<Array<Omit<AuditRow, 'id' | 'at'> & { id: string | number; at: Date }>>(
      ...AUDIT_COLUMNS,
    )
    .orderBy('id', 'desc')
    .limit(filter.limit + 1);
  if (filter.actor !== undefined) query.where('actor', filter.actor);
  if (filter.action !== undefined) query.where('action', filter.action);
  if (filter.appId !== undefined) query.where('app_id', filter.appId);
  if (filter.since !== undefined) query.where('at', '>=', filter.since);
  if (filter.until !== undefined) query.where('at', '<', filter.until);
  if (filter.after !== undefined) query.where('id', '<', filter.after);
  const rows = await query;
  return rows.map((r) => ({ ...r, id: String(r.id), at: r.at.toISOString() }));
}

/**
 * Deletes rows older than `retentionDays`, `batch` at a time, until none is left; returns how many
 * went. Each batch locks its rows with SKIP LOCKED, so api processes pruning at the same moment
 * split the work instead of waiting on each other or deleting twice.
 */
export function pruneAudit(db: Knex, retentionDays: number, batch = 1000): Promise<number> {
  return deleteInBatches(
    db,
    `delete from audit_log where id in (
       select id from audit_log where at < now() - make_interval(days => ?)
       order by id limit ? for update skip locked)`,
    [retentionDays],
    batch,
  );
}
