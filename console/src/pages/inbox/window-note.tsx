/**
 * A WhatsApp conversation's 24-hour window as the holder reads it (docs/outbound.md): when it
 * closes while open, or that it closed and only a template may go. Nothing on other platforms.
 */
import { windowClosed, type Window } from './whatsapp-window.ts';

export function WindowNote({ window, now }: { window: Window; now: number }) {
  if (!window) return null;
  const at = window.closes_at ? new Date(window.closes_at).toLocaleString() : null;
  return windowClosed(window, now) ? (
    <p className="hint" role="note">
      WhatsApp’s 24-hour window {at ? `closed at ${at}` : 'is closed (the user never wrote)'}: only
      an approved template may be sent until they write again.
    </p>
  ) : (
    <p className="hint" role="note">
      WhatsApp’s 24-hour window closes at {at}; after that, only an approved template.
    </p>
  );
}
