/**
 * WhatsApp's 24-hour rule (docs/outbound.md): a business may write free-form to a user only within
 * 24 hours of the user's last message; after that only an approved template. Judged from our own
 * record of the user's messages: the newest inbound transcript row.
 */

/** How long after a user's last message WhatsApp lets a business write free-form (ms). */
export const WHATSAPP_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * SQL for the time of the newest inbound message of the conversation whose id is the SQL
 * expression `conversationId` (null if the user never wrote): an index probe from the
 * conversation's newest message back.
 */
export function lastInboundAtSql(conversationId: string): string {
  return `(select m.created_at from messages m
  where m.conversation_id = ${conversationId} and m.direction = 'in'
  order by m.id desc limit 1)`;
}

/**
 * SQL for whether the window is closed for a user whose newest inbound message is at the SQL
 * expression `lastInboundAt` (null when they never wrote).
 */
export function windowClosedSql(lastInboundAt: string): string {
  return `(${lastInboundAt} is null or ${lastInboundAt} < now() - interval '${WHATSAPP_WINDOW_MS} milliseconds')`;
}

/**
 * A WhatsApp conversation's 24-hour window: open or not, and when it closes (or closed); null
 * on platforms without one. `closes_at` is null when the user never wrote.
 */
export function whatsappWindow(
  to: { channel_type: string; last_inbound_at: Date | null },
  now = Date.now(),
): { open: boolean; closes_at: string | null } | null {
  if (to.channel_type !== 'whatsapp') return null;
  const last = to.last_inbound_at?.getTime();
  if (last === undefined) return { open: false, closes_at: null };
  return {
    open: now - last <= WHATSAPP_WINDOW_MS,
    closes_at: new Date(last + WHATSAPP_WINDOW_MS).toISOString(),
  };
}
