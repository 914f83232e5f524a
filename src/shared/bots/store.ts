/**
 * Bots and channels in Postgres. Channel details are sealed with AES-256-GCM (bound to the channel
 * id, with `CREDENTIALS_KEY`) before they are written and opened when read (with it or a key of
 * `CREDENTIALS_KEY_PREVIOUS`); outside this file only the key rotation
 * (`credentials-rotation.ts`) sees the sealed form. A channel whose credentials do not open is
 * still returned, marked `unreadable`, so one such channel never hides the other bots.
 */
import { randomUUID } from 'node:crypto';
import { CredentialKeys } from '../credential-keys.ts';
import { randomToken } from '../crypto.ts';
import type { Knex } from '../db.ts';
import { BotwireError } from '../errors.ts';
import { appendVersion } from '../flows/version-store.ts';
import type {
  BotHandoff,
  BotPatch,
  BotRecord,
  ChannelRecord,
  ChannelSecrets,
  ChannelKind,
  NewBot,
  NewChannel,
  WebDetails,
  WhatsAppDetails,
} from './types.ts';

interface BotRow {
  app_id: string;
  name: string;
  flow: Record<string, unknown>;
  flow_version: number | null;
  language: string;
  active: boolean;
  handoff: BotHandoff | null;
  created_at: Date;
  updated_at: Date;
}

interface ChannelRow {
  id: string;
  app_id: string;
  type: ChannelKind;
  external_id: string | null;
  credentials: string;
  webhook_registered_at: Date | null;
  created_at: Date;
}

const UNIQUE_VIOLATION = '23505';

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === UNIQUE_VIOLATION;
}

export class BotStore {
  readonly #db: Knex;
  readonly #keys: CredentialKeys;

  /**
   * @param options.credentialsKey `CREDENTIALS_KEY`: seals new credentials, opens stored ones.
   * @param options.previousCredentialsKeys `CREDENTIALS_KEY_PREVIOUS`: open stored credentials only.
   */
  constructor(options: {
    db: Knex;
    credentialsKey: Buffer;
    previousCredentialsKeys?: readonly Buffer[];
  }) {
    this.#db = options.db;
    this.#keys = new CredentialKeys(options.credentialsKey, options.previousCredentialsKeys);
  }

  /** Ids of the configured keys (`keyId`), the current one first. */
  get keyIds(): string[] {
    return this.#keys.ids;
  }

  #toChannel(row: ChannelRow): ChannelRecord {
    const record = {
      id: row.id,
      appId: row.app_id,
      type: row.type,
      externalId: row.external_id,
      webhookRegisteredAt: row.webhook_registered_at,
      createdAt: row.created_at,
    };
    let secrets: ChannelSecrets;
    try {
      secrets = JSON.parse(this.#keys.open(row.credentials, row.id).plaintext) as ChannelSecrets;
    } catch (error) {
      if (!(error instanceof BotwireError)) throw error;
      return unreadableChannel(record, error);
    }
    return { ...record, secrets };
  }

  #toBot(row: BotRow, channels: ChannelRow[]): BotRecord {
    return {
      appId: row.app_id,
      name: row.name,
      flow: row.flow,
      flowVersion: row.flow_version,
      language: row.language,
      active: row.active,
      // Rows read by code that selects only some columns (or older records) may lack it.
      handoff: row.handoff ?? {},
      createdAt: row.created_at,
      updatedAt: row.updated_at,
      channels: channels.filter((c) => c.app_id === row.app_id).map((c) => this.#toChannel(c)),
    };
  }

  async #withChannels(rows: BotRow[]): Promise<BotRecord[]> {
    if (rows.length === 0) return [];
    const channels = await this.#db<ChannelRow>('channels')
      .whereIn(
        'app_id',
        rows.map((r) => r.app_id),
      )
      .orderBy('created_at');
    return rows.map((row) => this.#toBot(row, channels));
  }

  #channelRow(appId: string, channel: NewChannel): ChannelRow {
    const id = randomUUID();
    const secrets: ChannelSecrets =
      channel.type === 'telegram'
        ? {
            type: 'telegram',
            details: { bot_token: (channel.details as { bot_token: string }).bot_token },
            secret_token: randomToken(),
          }
        : channel.type === 'web'
          ? {
              type: 'web',
              details: {
                allowed_origins: [...(channel.details as WebDetails).allowed_origins],
              },
              token_key: randomToken(),
            }
          : { type: 'whatsapp', details: channel.details as WhatsAppDetails };
    return {
      id,
      app_id: appId,
      type: channel.type,
      external_id:
        channel.type === 'whatsapp' ? (channel.details as WhatsAppDetails).phone_number_id : null,
      credentials: this.#keys.seal(JSON.stringify(secrets), id),
      webhook_registered_at: null,
      created_at: new Date(),
    };
  }

  async #insertChannel(trx: Knex, row: ChannelRow): Promise<void> {
    try {
      await trx('channels').insert(row);
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new BotwireError(
          'BW_ERR_CONFLICT',
          row.type === 'web'
            ? 'this bot already has a web channel'
            : `a ${row.type} channel with this number already exists`,
        );
      }
      throw error;
    }
  }

  /**
   * Creates a bot with its first channel and its flow as version 1, in one transaction.
   * @param author who created it, recorded on the version. @defaultValue "admin-key"
   */
  async createBot(bot: NewBot, author = 'admin-key'): Promise<BotRecord> {
    const appId = randomUUID();
    return this.#db.transaction(async (trx) => {
      const [row] = await trx<BotRow>('bots')
        .insert({
          app_id: appId,
          name: bot.name,
          flow: bot.flow,
          language: bot.language ?? 'en',
          active: bot.active ?? true,
          handoff: bot.handoff ?? {},
        })
        .returning('*');
      const channel = this.#channelRow(appId, bot.channel);
      await this.#insertChannel(trx, channel);
      const version = await appendVersion(trx, appId, { flow: bot.flow, author });
      return this.#toBot({ ...row!, flow_version: version!.version }, [channel]);
    });
  }

  async getBot(appId: string): Promise<BotRecord | undefined> {
    const row = await this.#db<BotRow>('bots').where({ app_id: appId }).first();
    if (!row) return undefined;
    const [bot] = await this.#withChannels([row]);
    return bot;
  }

  /** The bot owning a WhatsApp number, if any. */
  async getBotByWhatsAppNumber(phoneNumberId: string): Promise<BotRecord | undefined> {
    const channel = await this.#db<ChannelRow>('channels')
      .where({ type: 'whatsapp', external_id: phoneNumberId })
      .first('app_id');
    return channel ? this.getBot(channel.app_id) : undefined;
  }

  /**
   * Bots in creation order, `limit` at a time; pass the last app id of a page as `after` for the
   * next one.
   */
  /** Bots in creation order, in pages; `appIds` keeps to those (an agent's assigned bots). */
  async listBots(options: {
    limit: number;
    after?: string;
    appIds?: readonly string[];
  }): Promise<BotRecord[]> {
    const query = this.#db<BotRow>('bots')
      .orderBy([{ column: 'created_at' }, { column: 'app_id' }])
      .limit(options.limit);
    if (options.appIds) void query.whereIn('app_id', [...options.appIds]);
    if (options.after) {
      // Compared in SQL: timestamps keep microseconds there, and lose them in a JS Date.
      void query.whereRaw(
        '(created_at, app_id) > (select created_at, app_id from bots where app_id = ?)',
        [options.after],
      );
    }
    return this.#withChannels(await query);
  }

  /** Every bot with its channels: what the edge keeps in memory. */
  async loadAll(): Promise<BotRecord[]> {
    return this.#withChannels(await this.#db<BotRow>('bots').orderBy('created_at'));
  }

  /**
   * Changes a bot; a new `flow` is published as its next version (in the same transaction).
   * @param author who made the change, recorded on a new version. @defaultValue "admin-key"
   */
  async updateBot(
    appId: string,
    patch: BotPatch,
    author = 'admin-key',
  ): Promise<BotRecord | undefined> {
    const changes: Partial<BotRow> = {};
    if (patch.name !== undefined) changes.name = patch.name;
    if (patch.language !== undefined) changes.language = patch.language;
    if (patch.active !== undefined) changes.active = patch.active;
    if (patch.handoff !== undefined) changes.handoff = patch.handoff;
    const row = await this.#db.transaction(async (trx) => {
      if (
        patch.flow !== undefined &&
        !(await appendVersion(trx, appId, { flow: patch.flow, author }))
      )
        return undefined;
      const [updated] = await trx<BotRow>('bots')
        .where({ app_id: appId })
        .update({ ...changes, updated_at: this.#db.fn.now() as unknown as Date })
        .returning('*');
      return updated;
    });
    if (!row) return undefined;
    const [bot] = await this.#withChannels([row]);
    return bot;
  }

  /**
   * @returns whether the bot existed. Its channels, conversations, messages and state go with it,
   * by cascade, in one statement that grows with its history: it runs without the pool's
   * statement limit (`DATABASE_STATEMENT_TIMEOUT_MS`), which would otherwise make a bot with a
   * long history impossible to delete.
   */
  async deleteBot(appId: string): Promise<boolean> {
    return this.#db.transaction(async (trx) => {
      await trx.raw('set local statement_timeout = 0');
      return (await trx('bots').where({ app_id: appId }).delete()) > 0;
    });
  }

  async addChannel(appId: string, channel: NewChannel): Promise<ChannelRecord> {
    if (channel.type === 'telegram' || channel.type === 'web') {
      // Telegram's callback URL and the web routes name the bot, not the channel: one per bot
      // (for web also a unique index, so two concurrent adds cannot both win).
      const existing: { id: string } | undefined = await this.#db('channels')
        .where({ app_id: appId, type: channel.type })
        .first('id');
      if (existing)
        throw new BotwireError('BW_ERR_CONFLICT', `this bot already has a ${channel.type} channel`);
    }
    const row = this.#channelRow(appId, channel);
    await this.#insertChannel(this.#db, row);
    return this.#toChannel(row);
  }

  /**
   * Replaces the details of channel `channelId` of bot `appId` (a web channel's origins, a new
   * Telegram token, WhatsApp credentials), keeping the secrets botwire made for it (the webhook
   * secret, the visitor tokens' key). A new Telegram token needs its webhook registered again.
   * `details` may be made from the channel as it is (one detail changed, the others kept): the
   * row is locked from that read to the write, so a change made meanwhile is not written over.
   * @returns the channel, or undefined when the bot has no such operator channel.
   * @throws BotwireError `BW_ERR_CONFLICT` for a WhatsApp number another channel has.
   */
  async updateChannel(
    appId: string,
    channelId: string,
    details: NewChannel['details'] | ((old: ChannelRecord) => NewChannel['details']),
  ): Promise<ChannelRecord | undefined> {
    return this.#db.transaction((trx) => this.#updateChannel(trx, appId, channelId, details));
  }

  async #updateChannel(
    trx: Knex.Transaction,
    appId: string,
    channelId: string,
    change: NewChannel['details'] | ((old: ChannelRecord) => NewChannel['details']),
  ): Promise<ChannelRecord | undefined> {
    const row = await trx<ChannelRow>('channels')
      .where({ id: channelId, app_id: appId })
      .whereNot({ type: 'console' })
      .forUpdate()
      .first();
    if (!row) return undefined;
    const old = this.#toChannel(row);
    const details = typeof change === 'function' ? change(old) : change;
    const made = this.#channelRow(appId, { type: row.type as NewChannel['type'], details });
    const secrets = JSON.parse(
      this.#keys.open(made.credentials, made.id).plaintext,
    ) as ChannelSecrets;
    // What botwire generated for the channel stays: tokens already handed out keep working.
    if (!old.unreadable) {
      if (secrets.type === 'telegram' && old.secrets.type === 'telegram')
        secrets.secret_token = old.secrets.secret_token;
      if (secrets.type === 'web' && old.secrets.type === 'web')
        secrets.token_key = old.secrets.token_key;
    }
    const tokenChanged =
      secrets.type === 'telegram' &&
      (old.unreadable ||
        old.secrets.type !== 'telegram' ||
        old.secrets.details.bot_token !== secrets.details.bot_token);
    const changes = {
      credentials: this.#keys.seal(JSON.stringify(secrets), row.id),
      external_id: made.external_id,
      updated_at: new Date(),
      ...(tokenChanged ? { webhook_registered_at: null } : {}),
    };
    try {
      await trx('channels').where({ id: row.id }).update(changes);
    } catch (error) {
      if (isUniqueViolation(error))
        throw new BotwireError(
          'BW_ERR_CONFLICT',
          'a whatsapp channel with this number already exists',
        );
      throw error;
    }
    return this.#toChannel({ ...row, ...changes });
  }

  /**
   * Deletes channel `channelId` of bot `appId`, and with it its conversations and their
   * transcripts (the console says how many first). The console channel is not the operator's to
   * remove. @returns the channel deleted, or undefined when there was none.
   */
  async removeChannel(appId: string, channelId: string): Promise<ChannelRecord | undefined> {
    return this.#db.transaction(async (trx) => {
      // The cascade over a long history runs without the pool's statement limit, as deleteBot.
      await trx.raw('set local statement_timeout = 0');
      const [row] = await trx<ChannelRow>('channels')
        .where({ id: channelId, app_id: appId })
        .whereNot({ type: 'console' })
        .delete()
        .returning('*');
      return row && this.#toChannel(row);
    });
  }

  /**
   * The bot's console channel (its test chats' own), made on first use; undefined when the bot does
   * not exist. Two first uses at once make one: the unique index keeps the other out, and it reads
   * the winner's.
   */
  async consoleChannel(appId: string): Promise<ChannelRecord | undefined> {
    const existing = await this.#db<ChannelRow>('channels')
      .where({ app_id: appId, type: 'console' })
      .first();
    if (existing) return this.#toChannel(existing);
    const bot: unknown = await this.#db('bots').where({ app_id: appId }).first('app_id');
    if (bot === undefined) return undefined;
    const id = randomUUID();
    const secrets: ChannelSecrets = { type: 'console', token_key: randomToken() };
    const row: ChannelRow = {
      id,
      app_id: appId,
      type: 'console',
      external_id: null,
      credentials: this.#keys.seal(JSON.stringify(secrets), id),
      webhook_registered_at: null,
      created_at: new Date(),
    };
    const inserted = await this.#db<ChannelRow>('channels')
      .insert(row)
      .onConflict(this.#db.raw(`(app_id) where type = 'console'`))
      .ignore()
      .returning('id');
    if (inserted.length > 0) return this.#toChannel(row);
    const winner = await this.#db<ChannelRow>('channels')
      .where({ app_id: appId, type: 'console' })
      .first();
    return winner && this.#toChannel(winner);
  }

  async markWebhookRegistered(channelId: string): Promise<Date> {
    const [row] = await this.#db<ChannelRow>('channels')
      .where({ id: channelId })
      .update({ webhook_registered_at: this.#db.fn.now() as unknown as Date })
      .returning('webhook_registered_at');
    return row!.webhook_registered_at!;
  }
}

/**
 * A channel whose credentials did not open: every field but `secrets`, which throws
 * `BW_ERR_CREDENTIALS_KEY` naming the channel, its bot and the remedy. Not enumerable, so copying
 * or logging the record does not throw.
 */
function unreadableChannel(
  record: Omit<ChannelRecord, 'secrets' | 'unreadable'>,
  cause: BotwireError,
): ChannelRecord {
  const keyId = (cause.details?.key_id as string | null | undefined) ?? null;
  const channel = { ...record, unreadable: { reason: cause.message, keyId } } as ChannelRecord;
  Object.defineProperty(channel, 'secrets', {
    enumerable: false,
    get(): never {
      throw new BotwireError(
        'BW_ERR_CREDENTIALS_KEY',
        `the credentials of ${record.type} channel ${record.id} (bot ${record.appId}) do not open with the configured keys: ${cause.message}; set the key they were sealed with as CREDENTIALS_KEY_PREVIOUS, or re-create the channel`,
        { details: { app_id: record.appId, channel_id: record.id, key_id: keyId } },
      );
    },
  });
  return channel;
}
