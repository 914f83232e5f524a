/**
 * The conversation states this process wrote last, so a turn need not read its state back from
 * Postgres (one round trip of the two a turn costs).
 *
 * Safe because every write is optimistic (`state-store.ts`: `UPDATE ... WHERE version = <read
 * version>`): a cached state that is stale, because another process wrote the conversation
 * meanwhile (its partition moved and came back), fails its write with `BW_ERR_STATE_CONFLICT`,
 * the entry is dropped, and the consumer's retry reads the state from Postgres. The same holds for
 * the redelivery check: a turn applied by another process is not in a stale entry's recent turns,
 * so it runs again, and its write conflicts. An entry is dropped whenever a turn fails, so a
 * state half-changed by a failed turn is never reused.
 */
import type { StoredState } from './state-store.ts';

export class StateCache {
  readonly #max: number;
  readonly #entries = new Map<string, StoredState>();

  /** @param max conversations kept; the least recently used go first. @defaultValue 10000 */
  constructor(max = 10_000) {
    this.#max = max;
  }

  get(conversationId: string): StoredState | undefined {
    const entry = this.#entries.get(conversationId);
    if (entry) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.#entries.delete(conversationId);
      this.#entries.set(conversationId, entry);
    }
    return entry;
  }

  set(conversationId: string, state: StoredState): void {
    this.#entries.delete(conversationId);
    this.#entries.set(conversationId, state);
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  delete(conversationId: string): void {
    this.#entries.delete(conversationId);
  }

  get size(): number {
    return this.#entries.size;
  }
}
