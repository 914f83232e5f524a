/**
 * The before/after notes the admin handlers give the audit log (./audit-note.ts): small views of
 * what changed, never whole flows or channel details (the redaction in src/api/audit/redact.ts
 * would remove secrets anyway; these views do not carry them in the first place).
 */
import type { BotRecord } from '../../shared/bots/types.ts';
import type { AuditNote } from './audit-note.ts';

/** A bot as audit rows show it: its settings, flow version and channels' types and ids. */
export function botNote(bot: BotRecord): Record<string, unknown> {
  return {
    name: bot.name,
    language: bot.language,
    active: bot.active,
    flow_version: bot.flowVersion ?? null,
    channels: bot.channels.map((c) => ({ type: c.type, id: c.id })),
  };
}

/** Where a patched field shows in {@link botNote}: a new flow is a new flow version. */
const NOTE_FIELD: Record<string, string> = { flow: 'flow_version' };

/**
 * Before and after of the fields a patch named that did change (a patch setting a field to its
 * current value leaves it out).
 */
export function changedFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  patched: string[],
): AuditNote {
  const note = { before: {} as Record<string, unknown>, after: {} as Record<string, unknown> };
  for (const key of patched) {
    const field = NOTE_FIELD[key] ?? key;
    if (JSON.stringify(before[field]) === JSON.stringify(after[field])) continue;
    note.before[field] = before[field];
    note.after[field] = after[field];
  }
  return note;
}
