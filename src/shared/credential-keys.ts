/**
 * The keys channel credentials are sealed with: `CREDENTIALS_KEY` seals every new value, and it and
 * the keys of `CREDENTIALS_KEY_PREVIOUS` open stored ones. A `v2` value names its key, so the right
 * key is picked by id; a `v1` value (sealed before key ids) is tried with each key, current first.
 */
import { keyId, open, seal, sealedKeyId } from './crypto.ts';
import { BotwireError } from './errors.ts';

/** A stored value opened: its text, the id of the key that opened it, whether it is up to date. */
export interface OpenedValue {
  plaintext: string;
  keyId: string;
  /** Sealed with the current key in the current format: re-sealing it would change nothing. */
  current: boolean;
}

export class CredentialKeys {
  /** Id (`keyId`) of the key new values are sealed with. */
  readonly currentId: string;
  readonly #current: Buffer;
  /** Every configured key by id, the current one first. */
  readonly #byId = new Map<string, Buffer>();

  /**
   * @param current `CREDENTIALS_KEY`: seals and opens.
   * @param previous `CREDENTIALS_KEY_PREVIOUS`: open only. A repeat of the current key is ignored.
   */
  constructor(current: Buffer, previous: readonly Buffer[] = []) {
    this.#current = current;
    this.currentId = keyId(current);
    this.#byId.set(this.currentId, current);
    for (const key of previous) {
      const id = keyId(key);
      if (!this.#byId.has(id)) this.#byId.set(id, key);
    }
  }

  /** Ids of the configured keys, the current one first. */
  get ids(): string[] {
    return [...this.#byId.keys()];
  }

  seal(plaintext: string, associatedData: string): string {
    return seal(this.#current, plaintext, associatedData);
  }

  /**
   * @throws BotwireError `BW_ERR_CREDENTIALS_KEY` when no configured key opens the value; its
   *   message says why (the key it names is not configured, or the value is damaged or bound to
   *   another row) and `details.key_id` names the key it was sealed with (null for `v1`).
   */
  open(sealed: string, associatedData: string): OpenedValue {
    let named: string | undefined;
    try {
      named = sealedKeyId(sealed);
    } catch {
      throw unopenable('the stored value is not a sealed value', null);
    }
    if (named !== undefined) {
      const key = this.#byId.get(named);
      if (!key) throw unopenable(`it was sealed with key ${named}, which is not configured`, named);
      try {
        const plaintext = open(key, sealed, associatedData);
        return { plaintext, keyId: named, current: named === this.currentId };
      } catch {
        throw unopenable(
          `it names key ${named}, which does not open it: the value is damaged or belongs to another channel`,
          named,
        );
      }
    }
    for (const [id, key] of this.#byId) {
      try {
        return { plaintext: open(key, sealed, associatedData), keyId: id, current: false };
      } catch {
        // Not this key; a v1 value does not say which, so the next one is tried.
      }
    }
    throw unopenable('it was sealed (without a key id) with none of the configured keys', null);
  }
}

function unopenable(reason: string, sealedWith: string | null): BotwireError {
  return new BotwireError('BW_ERR_CREDENTIALS_KEY', reason, { details: { key_id: sealedWith } });
}
