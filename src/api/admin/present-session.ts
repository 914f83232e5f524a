/** A console session as the API lists it: never its token nor the digest that finds it. */
import type { Session } from './session-store.ts';

export function presentSession(session: Session, currentId?: string): Record<string, unknown> {
  return {
    id: session.id,
    actor: session.actor,
    created_at: session.createdAt,
    expires_at: session.expiresAt,
    address: session.address,
    user_agent: session.userAgent,
    current: session.id === currentId,
  };
}
