/** A WhatsApp conversation's 24-hour window (docs/outbound.md), as the inbox decides by it. */
import type { HandoffDetail } from '../../api/types.ts';

export type Window = HandoffDetail['whatsapp_window'];

/** Closed by now: the API said so, or its closing time has passed since; never elsewhere. */
export function windowClosed(window: Window, now: number): boolean {
  if (!window) return false;
  if (!window.open || window.closes_at === null) return true;
  return Date.parse(window.closes_at) <= now;
}
