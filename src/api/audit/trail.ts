/**
 * The audit middleware (docs/audit.md): placed after authentication on the admin and session
 * routers, it lets the handler run and, when the request was a change (any method but GET, HEAD,
 * OPTIONS) that succeeded (status < 400, no error thrown), writes one `audit_log` row: who, from
 * which address, the action and target from ./actions.ts, and the handler's `ctx.state.audit`
 * note passed through ./redact.ts. A failed change writes nothing.
 *
 * The row is written after the change, not in its transaction: the handlers' changes span
 * Postgres, Redis and outside APIs (a Telegram webhook), which no one transaction covers. If the
 * write fails, the change stands and its answer is sent: an error is logged with the whole entry
 * (so it can be recovered from the logs) and `botwire_audit_write_failures_total` counts it.
 */
import type { Context, Middleware } from 'koa';
import type { Knex } from '../../shared/db.ts';
import type {} from '../admin/audit-note.ts';
import type {} from '../admin/principal.ts';
import { peerAddress } from '../admin/guard.ts';
import { auditActionOf } from './actions.ts';
import { redact } from './redact.ts';
import { writeAudit, type AuditEntry } from './store.ts';

declare module 'koa' {
  interface DefaultState {
    /** Set by a handler whose request changed nothing after all (a sign-out without a session). */
    auditSkip?: boolean;
  }
}

const UNCHANGING = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Who made the change: the principal's actor and account, else the authenticated actor. */
export function actorOf(ctx: Context): { actor: string; accountId: string | null } {
  const principal = ctx.state.principal;
  return {
    actor: principal?.actor ?? ctx.state.actor ?? 'unknown',
    accountId: principal?.accountId ?? null,
  };
}

export interface AuditTrailOptions {
  db: Knex;
  /** Called when a row could not be written (counts the metric). */
  onLost: () => void;
}

/** The middleware; see the file comment. */
export function auditTrail(options: AuditTrailOptions): Middleware {
  return async (ctx, next) => {
    await next();
    if (UNCHANGING.has(ctx.method) || ctx.status >= 400 || ctx.state.auditSkip) return;
    const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    const known = auditActionOf(ctx.method, typeof route === 'string' ? route : ctx.path);
    if (known === null) return;
    const target = known.target(ctx);
    const note = ctx.state.audit ?? {};
    const summary: Record<string, unknown> = {};
    if (note.before !== undefined) summary.before = redact(note.before);
    if (note.after !== undefined) summary.after = redact(note.after);
    const entry: AuditEntry = {
      ...actorOf(ctx),
      address: peerAddress(ctx),
      action: known.action,
      targetType: target.type,
      targetId: target.id,
      appId: target.appId,
      summary,
    };
    try {
      await writeAudit(options.db, entry);
    } catch (error) {
      options.onLost();
      ctx.log.error({ err: error, audit: entry }, 'audit row not written; the change stands');
    }
  };
}
