/**
 * What a mutating admin handler tells the audit log about its change (docs/audit.md): the state
 * before and after, as small objects. The audit middleware redacts both before writing them.
 */
export interface AuditNote {
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}
declare module 'koa' {
  interface DefaultState {
    audit?: AuditNote;
  }
}
