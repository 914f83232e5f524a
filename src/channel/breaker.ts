/**
 * The circuit breaker of each platform account (a bot's channel), and the parking stream where
 * that account's replies wait while its platform fails, outside the `channel` handler slots.
 *
 * - Closed: replies are sent by the handler. A failed call (timeout, 5xx, refused connection)
 *   counts; `failures` of them within `windowMs` open the breaker.
 * - Open: every reply of the account is parked (appended to its parking stream and acknowledged)
 *   instead of sent; so is every reply while the stream holds any, so a reply never overtakes a
 *   parked one of its conversation. The drainer (`drainer.ts`) sends parked replies once the
 *   breaker's open time has passed: first one alone (the half-open probe), then the rest; a
 *   failed probe opens the breaker again for twice as long, up to `openMaxMs`.
 *
 * Parking is exactly-once per turn: the append and a marker of the turn id are one script (the
 * producer's publish-once mechanism), so a reply redelivered after a crash is not parked twice.
 * Every key of an account shares its hash tag (`{park:<channel id>}`): one Cluster slot. The
 * index of accounts with parked replies (`{parking}`) is a separate key, written after each park.
 */
import { breakerKeys, parkingBase } from '../shared/bot-turns.ts';
import { isCluster, type Redis } from '../shared/redis.ts';
import { paceArgs, RESERVE_LUA, type Pace } from './pacing.ts';

// KEYS: parked stream, open flag, failure counter, the turn's marker, then the pace keys of the
// reply's calls (none, or all in the breaker's slot: one Redis server).
// ARGV: data, marker ttl (s), force ('1' parks whatever the state), then each pace's interval
// and burst.
// Returns -1 parked now, -2 parked before (the marker exists: the parked copy is the drainer's to
// send, or sent), else the failures in the window (send it), with pace keys {failures, the wait
// for the slot reserved for the reply's first call (ms)}.
const ADMIT = `${RESERVE_LUA}
if redis.call('EXISTS', KEYS[4]) == 1 then return -2 end
if ARGV[3] == '1' or redis.call('XLEN', KEYS[1]) > 0 or redis.call('EXISTS', KEYS[2]) == 1 then
  if redis.call('SET', KEYS[4], '1', 'NX', 'EX', ARGV[2]) then
    redis.call('XADD', KEYS[1], '*', 'data', ARGV[1])
    return -1
  end
  return -2
end
local failures = tonumber(redis.call('GET', KEYS[3]) or '0')
if #KEYS == 4 then return failures end
return {failures, reserve(4, 3)}`;

// KEYS: failure counter, open flag, open level.
// ARGV: failures that open, window (ms), first open time (ms), longest open time (ms).
// Returns the open time set now (ms), -1 when it was open already, 0 while it stays closed.
const FAIL = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
if n < tonumber(ARGV[1]) then return 0 end
local level = redis.call('INCR', KEYS[3])
local ms = math.min(tonumber(ARGV[3]) * 2 ^ (level - 1), tonumber(ARGV[4]))
redis.call('PEXPIRE', KEYS[3], math.floor(tonumber(ARGV[4]) * 4))
redis.call('SET', KEYS[2], ms, 'PX', math.floor(ms))
return math.floor(ms)`;

// KEYS: lease. ARGV: holder. Deletes the lease only when it is still this holder's.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

/** The scripts, defined as the connection is made (see `createKit`'s `scripts`). */
export const BREAKER_SCRIPTS = {
  bwParkAdmit: { lua: ADMIT },
  bwParkFail: { lua: FAIL },
  bwParkRelease: { lua: RELEASE },
};

interface BreakerCommands {
  bwParkAdmit(numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  bwParkFail(numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  bwParkRelease(numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

export interface BreakerOptions {
  /** A connection made with `BREAKER_SCRIPTS`. */
  redis: Redis;
  prefix: string;
  /** Failed calls within `windowMs` that open the breaker. @defaultValue 5 */
  failures?: number;
  /** @defaultValue 30000 */
  windowMs?: number;
  /** First open time (ms). @defaultValue 2000 */
  openMs?: number;
  /** Longest open time (ms). @defaultValue 60000 */
  openMaxMs?: number;
  /** How long a parked turn's marker is kept (s). @defaultValue 86400 */
  markerTtlS?: number;
}

/**
 * What the handler is to do with a reply. `slotDueAt` (epoch ms): when the slot reserved for the
 * reply's first call is due, if one was reserved with the admission.
 */
export type Admission = { parked: true } | { parked: false; failures: number; slotDueAt?: number };

/** A reply waiting in a parking stream. */
export interface ParkedEntry {
  id: string;
  data: string;
}

/** The breakers and parking streams of platform accounts, kept in Redis for every process. */
export class Breaker {
  readonly #redis: Redis & BreakerCommands;
  readonly #o: Required<Omit<BreakerOptions, 'redis'>>;
  /** Pace keys lie in the breaker's slot only on one server: there the admission reserves. */
  readonly #oneServer: boolean;

  constructor(options: BreakerOptions) {
    if (!('bwParkAdmit' in options.redis)) {
      throw new Error('the Redis connection was made without BREAKER_SCRIPTS');
    }
    this.#redis = options.redis as Redis & BreakerCommands;
    this.#oneServer = !isCluster(options.redis);
    this.#o = {
      failures: 5,
      windowMs: 30_000,
      openMs: 2000,
      openMaxMs: 60_000,
      markerTtlS: 86_400,
      ...options,
    };
  }

  /** The index of accounts that may have parked replies (score: last park, ms). */
  get indexKey(): string {
    return `${this.#o.prefix}:{parking}`;
  }

  #keys(account: string): ReturnType<typeof breakerKeys> {
    return breakerKeys(this.#o.prefix, account);
  }

  /**
   * Parks the reply when the account's breaker is open or replies are parked already (or always,
   * with `force`); otherwise says to send it, with the account's failures in the window.
   *
   * With `paces` (those of the reply's calls) on one Redis server, a reply to send also gets the
   * slot of its first call, in the same script: one round trip fewer a reply. A cluster holds the
   * pace keys in other slots, so there the caller reserves apart (no `slotDueAt`).
   */
  async admit(
    account: string,
    turnId: string,
    data: string,
    force = false,
    paces: readonly [string, Pace][] = [],
  ): Promise<Admission> {
    const keys = this.#keys(account);
    const marker = `${parkingBase(this.#o.prefix, account)}:seen:${turnId}`;
    const slot = paceArgs(!force && this.#oneServer ? paces : []);
    const answer = await this.#redis.bwParkAdmit(
      4 + slot.keys.length,
      keys.parked,
      keys.open,
      keys.fails,
      marker,
      ...slot.keys,
      data,
      this.#o.markerTtlS,
      force ? '1' : '0',
      ...slot.rates,
    );
    if (Array.isArray(answer)) {
      // The wait counts from the answer, as the pacer's does.
      return {
        parked: false,
        failures: Number(answer[0]),
        slotDueAt: Date.now() + Number(answer[1]),
      };
    }
    const result = Number(answer);
    if (result >= 0) return { parked: false, failures: result };
    // Parked now or before (a redelivery after a crash): index the account either way, so a
    // crash between the park and this write is mended by the redelivery.
    await this.#redis.zadd(this.indexKey, String(Date.now()), account);
    return { parked: true };
  }

  /**
   * Counts a failed call; resolves to whether the breaker is open now. `threshold` overrides the
   * failures that open it (1: a failed probe opens it again at once).
   */
  async fail(account: string, threshold = this.#o.failures): Promise<boolean> {
    const keys = this.#keys(account);
    const result = Number(
      await this.#redis.bwParkFail(
        3,
        keys.fails,
        keys.open,
        keys.level,
        threshold,
        this.#o.windowMs,
        this.#o.openMs,
        this.#o.openMaxMs,
      ),
    );
    return result !== 0;
  }

  /** A call went through: the failures counted and the open level are forgotten. */
  async succeeded(account: string): Promise<void> {
    const keys = this.#keys(account);
    await this.#redis.del(keys.fails, keys.level);
  }

  /** Time left (ms) before an open breaker lets a probe through; 0 when it is not open. */
  async openFor(account: string): Promise<number> {
    return Math.max(0, Number(await this.#redis.pttl(this.#keys(account).open)));
  }

  /** Accounts in the index, with when each last parked a reply (ms). */
  async indexed(): Promise<{ account: string; parkedAt: number }[]> {
    const flat = await this.#redis.zrange(this.indexKey, '0', '-1', 'WITHSCORES');
    const out: { account: string; parkedAt: number }[] = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      out.push({ account: flat[i]!, parkedAt: Number(flat[i + 1]) });
    }
    return out;
  }

  /** Drops an account from the index (its stream was found empty). */
  async unindex(account: string): Promise<void> {
    await this.#redis.zrem(this.indexKey, account);
  }

  /** The oldest `count` parked replies of an account, oldest first. */
  async peek(account: string, count: number): Promise<ParkedEntry[]> {
    const rows = await this.#redis.xrange(this.#keys(account).parked, '-', '+', 'COUNT', count);
    return rows.map(([id, fields]) => ({ id, data: fields[fields.indexOf('data') + 1] ?? '' }));
  }

  /** Removes replies that were sent (or can never be). */
  async remove(account: string, ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.#redis.xdel(this.#keys(account).parked, ...ids);
  }

  /** Takes the account's drain lease for `ms` unless another holder has it. */
  async lease(account: string, holder: string, ms: number): Promise<boolean> {
    const key = `${parkingBase(this.#o.prefix, account)}:drain`;
    return (await this.#redis.set(key, holder, 'PX', ms, 'NX')) === 'OK';
  }

  /** Extends a held lease. */
  async renew(account: string, ms: number): Promise<void> {
    await this.#redis.pexpire(`${parkingBase(this.#o.prefix, account)}:drain`, ms);
  }

  /** Hands the lease back if it is still this holder's. */
  async release(account: string, holder: string): Promise<void> {
    await this.#redis.bwParkRelease(1, `${parkingBase(this.#o.prefix, account)}:drain`, holder);
  }
}
