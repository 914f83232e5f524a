/**
 * The conversation states this process wrote last, so a turn need not read its state back from
 * Postgres (one round trip of the two a turn costs). Bounded in bytes as well as in entries: an
 * entry counts as the size of its JSON (what the turn wrote), so a few bots storing big answers
 * cannot grow the process without limit; the least recently used entries go first.
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

/** Bytes counted for an entry beyond its JSON: the key, the map slot, the object shells. */
const ENTRY_OVERHEAD = 256;

export class StateCache {
  readonly #max: number;
  readonly #maxBytes: number;
  readonly #entries = new Map<string, { state: StoredState; bytes: number }>();
  #bytes = 0;

  /**
   * @param max conversations kept. @defaultValue 10000
   * @param maxBytes bytes kept, counted as each entry's JSON size; 0 keeps nothing.
   *   @defaultValue 67108864 (64 MiB)
   */
  constructor(max = 10_000, maxBytes = 64 * 1024 * 1024) {
    this.#max = max;
    this.#maxBytes = maxBytes;
  }

  get(conversationId: string): StoredState | undefined {
    const entry = this.#entries.get(conversationId);
    if (entry) {
      // Map order is insertion order: re-inserting marks it most recently used.
      this.#entries.delete(conversationId);
      this.#entries.set(conversationId, entry);
    }
    return entry?.state;
  }

  /**
   * Keeps `state`, then drops the least recently used entries until both bounds hold.
   * @param bytes the size of the entry's JSON (state, recent turns, outbox), as written.
   */
  set(conversationId: string, state: StoredState, bytes: number): void {
    this.delete(conversationId);
    const size = bytes + ENTRY_OVERHEAD;
    if (size > this.#maxBytes) return; // would evict everything and still not fit
    this.#entries.set(conversationId, { state, bytes: size });
    this.#bytes += size;
    while (this.#entries.size > this.#max || this.#bytes > this.#maxBytes) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.delete(oldest);
    }
  }

  delete(conversationId: string): void {
    const entry = this.#entries.get(conversationId);
    if (!entry) return;
    this.#entries.delete(conversationId);
    this.#bytes -= entry.bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Bytes the entries count for (their JSON plus a fixed overhead each). */
  get bytes(): number {
    return this.#bytes;
  }
}
