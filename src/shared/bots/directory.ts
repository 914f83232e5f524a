/**
 * An in-memory view of every bot and channel, so that a platform callback is matched and
 * authenticated without a database round trip.
 *
 * Freshness: a process that changes a bot publishes its app id on `<prefix>:bots:changed`; every
 * directory reloads that bot. A full reload every `refreshMs` repairs anything a missed
 * notification (a Redis reconnect) left stale. A lookup that misses asks the database once and
 * remembers a miss for `missTtlMs` (at most `maxMisses` of them, the oldest forgotten first), so
 * one unknown id cannot turn into a query per request.
 *
 * With `trustCurrentView`, a miss is answered from the view alone while the view is current: the
 * subscription is up and a full load finished after it (re)connected, so every change since is
 * either in the view or on its way as a notification. Made-up ids then never reach the database;
 * only while the subscription is down do misses fall back to the database and the miss memory.
 *
 * Credentials that do not open with the configured keys (docs/security.md): at start, if no stored
 * channel opens, the key is wrong and `start` refuses with one `BW_ERR_CREDENTIALS_KEY` naming
 * every channel; if some open, the directory starts, logs that same error once, and only the bots
 * of those channels are refused (reading their `secrets` throws). One met later (a reload) is
 * logged once, with its bot, and refused the same way; it never stops the directory.
 */
import { BotwireError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { duplicateRedis, type Redis } from '../redis.ts';
import type { BotStore } from './store.ts';
import type { BotRecord, ChannelRecord } from './types.ts';
import { credentialsKeyError, unreadableChannels } from './unreadable.ts';

export interface DirectoryOptions {
  store: BotStore;
  /** Used for PUBLISH; the directory duplicates it for its subscription. */
  redis: Redis;
  prefix: string;
  logger: Logger;
  /** Full reload period (ms). @defaultValue 60000 */
  refreshMs?: number;
  /** How long a lookup miss is remembered (ms). @defaultValue 5000 */
  missTtlMs?: number;
  /** Most misses remembered; the oldest is forgotten first (count). @defaultValue 10000 */
  maxMisses?: number;
  /**
   * Answer misses from the view, without the database, while the view is current (see above).
   * For the edge, where ids come from outside. @defaultValue false
   */
  trustCurrentView?: boolean;
}

export interface WhatsAppMatch {
  bot: BotRecord;
  channel: ChannelRecord;
}

export class BotDirectory {
  readonly #o: Required<DirectoryOptions>;
  readonly #subscriber: Redis;
  #bots = new Map<string, BotRecord>();
  #numbers = new Map<string, WhatsAppMatch>();
  readonly #misses = new Map<string, number>();
  /** Bumped by every targeted reload; a full reload that started before one is discarded. */
  #generation = 0;
  /**
   * Per bot, the generation of the newest targeted reload applied, and below every bot the
   * generation the last full reload started at: a reload that finishes after a newer one of the
   * same bot (two notifications in a row, answered out of order) is dropped, not applied over it.
   */
  readonly #applied = new Map<string, number>();
  #floor = 0;
  #timer: NodeJS.Timeout | undefined;
  #closing: Promise<void> | undefined;
  /** Channels whose credentials did not open, by id, with their bot's app id. */
  readonly #unreadable = new Map<string, string>();
  #started = false;
  readonly #listeners: ((appId: string) => void)[] = [];
  /** Bumped each time the subscription drops: a load that began before a drop proves nothing. */
  #connection = 0;
  #current = false;

  constructor(options: DirectoryOptions) {
    this.#o = {
      refreshMs: 60_000,
      missTtlMs: 5000,
      maxMisses: 10_000,
      trustCurrentView: false,
      ...options,
    };
    // The subscription waits out Redis outages (and reconnects) whatever the caller's connection does.
    this.#subscriber = duplicateRedis(options.redis, {
      connectionName: 'bot-directory',
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      enableAutoPipelining: false,
    });
  }

  get #channel(): string {
    return `${this.#o.prefix}:bots:changed`;
  }

  /**
   * Loads every bot and starts following changes.
   * @throws BotwireError `BW_ERR_CREDENTIALS_KEY` when channels are stored and none of them opens
   *   with the configured keys (`details.channels` lists them).
   */
  async start(): Promise<void> {
    this.#subscriber.on('message', (_channel: string, appId: string) => {
      this.reload(appId).catch((error: unknown) =>
        this.#o.logger.warn({ err: error, appId }, 'could not reload a changed bot'),
      );
    });
    this.#subscriber.on('close', () => {
      this.#connection += 1;
      this.#current = false;
    });
    await this.#subscriber.subscribe(this.#channel);
    await this.#reloadAllAndMark();
    this.#checkCredentials();
    this.#started = true;
    // Back after a drop: notifications sent meanwhile are lost, so load everything again.
    this.#subscriber.on('ready', () => {
      if (this.#closing) return;
      this.#reloadAllAndMark().catch((error: unknown) =>
        this.#o.logger.warn({ err: error }, 'bot reload after reconnecting failed'),
      );
    });
    this.#timer = setInterval(() => {
      this.#reloadAllAndMark().catch((error: unknown) =>
        this.#o.logger.warn({ err: error }, 'periodic bot reload failed; keeping the last view'),
      );
    }, this.#o.refreshMs);
    this.#timer.unref();
  }

  /**
   * Whether the view holds every bot: subscribed, and fully loaded since the subscription last
   * (re)connected.
   */
  get current(): boolean {
    return this.#current;
  }

  async #reloadAllAndMark(): Promise<void> {
    const connection = this.#connection;
    const loaded = await this.reloadAll();
    if (loaded && connection === this.#connection && this.#subscriber.status === 'ready')
      this.#current = true;
  }

  /** Loads every bot; false when a targeted reload ran meanwhile and the snapshot was dropped. */
  async reloadAll(): Promise<boolean> {
    const generation = this.#generation;
    const bots = await this.#o.store.loadAll();
    // A bot changed while this read ran: its targeted reload is newer than this snapshot.
    if (generation !== this.#generation) return false;
    const next = new Map<string, BotRecord>();
    const numbers = new Map<string, WhatsAppMatch>();
    for (const bot of bots) {
      next.set(bot.appId, bot);
      this.#indexNumbers(bot, numbers);
    }
    const previous = this.#bots;
    this.#bots = next;
    this.#numbers = numbers;
    this.#applied.clear();
    this.#floor = generation;
    this.#misses.clear();
    this.#track(bots);
    // A change whose notification was lost (the subscription dropped) shows only here.
    for (const appId of new Set([...previous.keys(), ...next.keys()])) this.#changed(appId);
    return true;
  }

  /**
   * Calls `listener` with the app id of each bot the view may have changed or dropped: after a
   * change notification, and after a full reload for every bot before and after it (a change
   * whose notification was lost shows only there). The listener looks at what it holds.
   */
  onChange(listener: (appId: string) => void): void {
    this.#listeners.push(listener);
  }

  #changed(appId: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(appId);
      } catch (error) {
        this.#o.logger.warn({ err: error, appId }, 'a bot change listener failed');
      }
    }
  }

  /** The start-up check: refuses when nothing opens, else reports the channels that do not. */
  #checkCredentials(): void {
    const unreadable = unreadableChannels(this.#bots.values());
    if (unreadable.length === 0) return;
    let total = 0;
    for (const bot of this.#bots.values()) total += bot.channels.length;
    const error = credentialsKeyError(unreadable, total, this.#o.store.keyIds);
    if (unreadable.length === total) throw error;
    this.#o.logger.error(
      { code: error.code, ...error.details },
      `${error.message} Starting: the other bots are served; these are refused until their credentials open.`,
    );
  }

  /**
   * Records which channels of `bots` do not open, replacing what was recorded for `appId` (or for
   * every bot), and after start logs each one newly found: once, not at every reload.
   */
  #track(bots: BotRecord[], appId?: string): void {
    const before = new Map(this.#unreadable);
    for (const [channelId, owner] of this.#unreadable) {
      if (appId === undefined || owner === appId) this.#unreadable.delete(channelId);
    }
    for (const found of unreadableChannels(bots)) {
      this.#unreadable.set(found.channel_id, found.app_id);
      if (!this.#started || before.has(found.channel_id)) continue;
      this.#o.logger.error(
        { code: 'BW_ERR_CREDENTIALS_KEY', ...found },
        `the credentials of channel ${found.channel_id} of bot ${JSON.stringify(found.bot_name)} (app ${found.app_id}) do not open with the configured keys: ${found.reason}; its traffic is refused until the key it was sealed with is configured (CREDENTIALS_KEY_PREVIOUS) or the channel is re-created`,
      );
    }
  }

  #indexNumbers(bot: BotRecord, numbers: Map<string, WhatsAppMatch>): void {
    for (const channel of bot.channels) {
      if (channel.type === 'whatsapp' && channel.externalId)
        numbers.set(channel.externalId, { bot, channel });
    }
  }

  /** Reloads one bot from the database (after a change notification). */
  async reload(appId: string): Promise<void> {
    this.#generation += 1;
    const generation = this.#generation;
    const bot = await this.#o.store.getBot(appId);
    // A newer read of this bot is already in the view: this older one must not undo it.
    if (generation <= Math.max(this.#floor, this.#applied.get(appId) ?? 0)) return;
    this.#applied.set(appId, generation);
    for (const [number, match] of this.#numbers) {
      if (match.bot.appId === appId) this.#numbers.delete(number);
    }
    if (bot) {
      this.#bots.set(appId, bot);
      this.#indexNumbers(bot, this.#numbers);
    } else {
      this.#bots.delete(appId);
    }
    this.#track(bot ? [bot] : [], appId);
    this.#misses.delete(`bot:${appId}`);
    for (const channel of bot?.channels ?? []) {
      if (channel.externalId) this.#misses.delete(`wa:${channel.externalId}`);
    }
    this.#changed(appId);
  }

  /** Tells every directory (this one included) that a bot changed. */
  async notifyChanged(appId: string): Promise<void> {
    await this.reload(appId);
    await this.#o.redis.publish(this.#channel, appId);
  }

  #recentlyMissed(key: string): boolean {
    const until = this.#misses.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.#misses.delete(key);
    return false;
  }

  async #miss<T>(key: string, load: () => Promise<T | undefined>): Promise<T | undefined> {
    if (this.#o.trustCurrentView && this.#current) return undefined;
    if (this.#recentlyMissed(key)) return undefined;
    let found: T | undefined;
    try {
      found = await load();
    } catch (error) {
      throw new BotwireError('BW_ERR_UNAVAILABLE', 'the bot directory cannot reach the database', {
        cause: error,
      });
    }
    if (found === undefined) {
      // Bounded: a flood of made-up ids must not grow memory without end. A Map iterates in
      // insertion order, so its first key is the oldest miss.
      if (this.#misses.size >= this.#o.maxMisses) {
        const oldest = this.#misses.keys().next();
        if (!oldest.done) this.#misses.delete(oldest.value);
      }
      this.#misses.set(key, Date.now() + this.#o.missTtlMs);
    }
    return found;
  }

  async byAppId(appId: string): Promise<BotRecord | undefined> {
    const bot = this.#bots.get(appId);
    if (bot) return bot;
    return this.#miss(`bot:${appId}`, async () => {
      await this.reload(appId);
      return this.#bots.get(appId);
    });
  }

  /**
   * Channel `channelId` of bot `appId`, with its bot. A channel the view does not hold yet (added a
   * moment ago, its change notification still on its way or its reload still running) is asked of
   * the database like a missing bot (with `trustCurrentView`, only while the view is not current),
   * so a first message through it is not dropped as unknown.
   */
  async channelOf(
    appId: string,
    channelId: string,
  ): Promise<{ bot: BotRecord; channel: ChannelRecord } | undefined> {
    const inView = (): { bot: BotRecord; channel: ChannelRecord } | undefined => {
      const bot = this.#bots.get(appId);
      const channel = bot?.channels.find((c) => c.id === channelId);
      return bot && channel ? { bot, channel } : undefined;
    };
    const found = inView();
    if (found) return found;
    return this.#miss(`channel:${appId}:${channelId}`, async () => {
      await this.reload(appId);
      return inView();
    });
  }

  async byWhatsAppNumber(phoneNumberId: string): Promise<WhatsAppMatch | undefined> {
    const match = this.#numbers.get(phoneNumberId);
    if (match) return match;
    return this.#miss(`wa:${phoneNumberId}`, async () => {
      const bot = await this.#o.store.getBotByWhatsAppNumber(phoneNumberId);
      if (bot) await this.reload(bot.appId);
      return this.#numbers.get(phoneNumberId);
    });
  }

  /** WhatsApp channels of `appId`, or of every bot, as the view holds them now. */
  /** Every bot known, with its channels (read from memory, kept current by the change feed). */
  bots(): BotRecord[] {
    return [...this.#bots.values()];
  }

  whatsappChannels(appId?: string): ChannelRecord[] {
    const channels: ChannelRecord[] = [];
    for (const bot of this.#bots.values()) {
      if (appId !== undefined && bot.appId !== appId) continue;
      for (const channel of bot.channels) if (channel.type === 'whatsapp') channels.push(channel);
    }
    return channels;
  }

  /** WhatsApp channels (of `appId`, or of every bot) that have a verify token. */
  whatsappChannelsWithVerifyToken(appId?: string): ChannelRecord[] {
    const channels: ChannelRecord[] = [];
    for (const bot of this.#bots.values()) {
      if (appId !== undefined && bot.appId !== appId) continue;
      for (const channel of bot.channels) {
        // One channel whose credentials do not open must not break the handshake of the others.
        if (channel.unreadable) continue;
        if (channel.secrets.type === 'whatsapp' && channel.secrets.details.verify_token)
          channels.push(channel);
      }
    }
    return channels;
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#timer) clearInterval(this.#timer);
      try {
        await this.#subscriber.quit();
      } catch {
        this.#subscriber.disconnect();
      }
    })();
    return this.#closing;
  }
}
