/** Bots and their channels as the service sees them (credentials opened). */
export const CHANNEL_TYPES = ['telegram', 'whatsapp', 'web'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export function isChannelType(value: string): value is ChannelType {
  return (CHANNEL_TYPES as readonly string[]).includes(value);
}

/**
 * Every channel a bot can have: a platform's (what operators add), or `console`, the console's
 * own, made when the bot's first test chat starts (docs/console.md, "Test chat"). Its
 * conversations are operators' tries: they run the flow their test chat names, and their replies
 * go to an event stream as a web visitor's do.
 */
export type ChannelKind = ChannelType | 'console';

/** Whether a channel's replies go to an event stream per chat (web visitors, test chats). */
export function streamsReplies(type: ChannelKind): boolean {
  return type === 'web' || type === 'console';
}

export interface TelegramDetails {
  bot_token: string;
}

export interface WhatsAppDetails {
  phone_number_id: string;
  access_token: string;
  app_secret?: string;
  verify_token?: string;
  /** The WhatsApp Business Account: its message templates are synced from it. */
  business_account_id?: string;
  /**
   * The number's messaging limit: unique users a day it may start conversations with (Meta's
   * tier; `shared/whatsapp-messaging-limit.ts`). Absent: 250, where every number starts.
   */
  messaging_limit?: 250 | 1000 | 10000 | 100000 | 'unlimited';
}

/** A web channel: the page origins its widget may run on (exact match, at most 20). */
export interface WebDetails {
  allowed_origins: string[];
}

/** What is sealed in `channels.credentials`: the operator's details plus secrets we generate. */
export type ChannelSecrets =
  | { type: 'telegram'; details: TelegramDetails; secret_token: string }
  | { type: 'whatsapp'; details: WhatsAppDetails }
  /** `token_key`: the HMAC-SHA256 key of the channel's visitor tokens, base64url (32 bytes). */
  | { type: 'web'; details: WebDetails; token_key: string }
  /** `token_key`: names the event streams opened on this channel (they end when it is made anew). */
  | { type: 'console'; token_key: string };

export interface ChannelRecord {
  id: string;
  appId: string;
  type: ChannelKind;
  /** What callbacks are matched by: the WhatsApp phone_number_id; null for Telegram and web. */
  externalId: string | null;
  /**
   * The opened credentials.
   * @throws BotwireError `BW_ERR_CREDENTIALS_KEY` when `unreadable` is set: they did not open with
   *   the configured keys, and nothing may use this channel until they do.
   */
  secrets: ChannelSecrets;
  /**
   * Set when the stored credentials do not open with `CREDENTIALS_KEY` or a key of
   * `CREDENTIALS_KEY_PREVIOUS`: why, and the id of the key they were sealed with (null when the
   * stored value does not name one).
   */
  unreadable?: { reason: string; keyId: string | null };
  webhookRegisteredAt: Date | null;
  createdAt: Date;
}

export interface BotRecord {
  appId: string;
  name: string;
  /** The flow of the current version (`flowVersion`). */
  flow: Record<string, unknown>;
  /**
   * The current flow version (docs/flows.md, "Versions"), as the store reads it; absent in records
   * made elsewhere (tests).
   */
  flowVersion?: number | null;
  language: string;
  active: boolean;
  /** Live-agent handoff settings (docs/handoff.md); absent or `{}` when none were set. */
  handoff?: BotHandoff;
  createdAt: Date;
  updatedAt: Date;
  channels: ChannelRecord[];
}

/** A bot's handoff settings (`bots.handoff`). */
export interface BotHandoff {
  /** Whole inputs (trimmed, case-insensitive) that start a handoff. */
  keywords?: string[];
  /** How long a handoff waits for an agent before its fallback runs (seconds). @defaultValue HANDOFF_TIMEOUT_S */
  timeout_s?: number;
}

export interface NewChannel {
  type: ChannelType;
  details: TelegramDetails | WhatsAppDetails | WebDetails;
}

export interface NewBot {
  name: string;
  flow: Record<string, unknown>;
  language?: string;
  active?: boolean;
  handoff?: BotHandoff;
  channel: NewChannel;
}

export interface BotPatch {
  name?: string;
  flow?: Record<string, unknown>;
  language?: string;
  active?: boolean;
  handoff?: BotHandoff;
}
