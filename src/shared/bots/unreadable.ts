/**
 * Channels whose credentials do not open with the configured keys, and the one error that reports
 * them at start (`BW_ERR_CREDENTIALS_KEY`, listing every channel and bot, and the remedy).
 */
import { BotwireError } from '../errors.ts';
import type { BotRecord } from './types.ts';

/** One channel whose credentials do not open, as reported (never a credential). */
export interface UnreadableChannel {
  app_id: string;
  bot_name: string;
  channel_id: string;
  type: string;
  /** The key the credentials were sealed with; null when the stored value does not name one. */
  key_id: string | null;
  reason: string;
}

/** Bots named in a message at most; `details.channels` lists them all. */
const NAMED_IN_MESSAGE = 10;

export const CREDENTIALS_KEY_REMEDY =
  'set the key they were sealed with as CREDENTIALS_KEY_PREVIOUS (comma separated, beside the current CREDENTIALS_KEY) and run ./scripts/rotate-credentials-key.sh, or delete and re-create those channels with their platform credentials';

/** Every channel of `bots` whose credentials did not open. */
export function unreadableChannels(bots: Iterable<BotRecord>): UnreadableChannel[] {
  const found: UnreadableChannel[] = [];
  for (const bot of bots) {
    for (const channel of bot.channels) {
      if (!channel.unreadable) continue;
      found.push({
        app_id: bot.appId,
        bot_name: bot.name,
        channel_id: channel.id,
        type: channel.type,
        key_id: channel.unreadable.keyId,
        reason: channel.unreadable.reason,
      });
    }
  }
  return found;
}

/**
 * The start-up report: how many of `total` channels do not open, which bots they belong to, the
 * configured key ids and the key ids the channels name, and the remedy. `details` carries the
 * same as data: `channels`, `total`, `configured_key_ids`, `sealed_with_key_ids`, `remedy`.
 */
export function credentialsKeyError(
  unreadable: readonly UnreadableChannel[],
  total: number,
  configuredKeyIds: readonly string[],
): BotwireError {
  const [current, ...previous] = configuredKeyIds;
  const sealedWith = [...new Set(unreadable.map((c) => c.key_id ?? 'unnamed (v1)'))];
  const named = unreadable
    .slice(0, NAMED_IN_MESSAGE)
    .map(
      (c) => `${JSON.stringify(c.bot_name)} (app ${c.app_id}, ${c.type} channel ${c.channel_id})`,
    );
  const more =
    unreadable.length > NAMED_IN_MESSAGE ? ` and ${unreadable.length - NAMED_IN_MESSAGE} more` : '';
  const message =
    `${unreadable.length} of ${total} channels cannot be opened with the configured keys ` +
    `(CREDENTIALS_KEY ${current ?? '?'}, CREDENTIALS_KEY_PREVIOUS ${previous.length > 0 ? previous.join(', ') : 'none'}); ` +
    `they were sealed with key ${sealedWith.join(', ')}. Bots: ${named.join(', ')}${more}. ` +
    `Remedy: ${CREDENTIALS_KEY_REMEDY}.`;
  return new BotwireError('BW_ERR_CREDENTIALS_KEY', message, {
    details: {
      channels: unreadable,
      total,
      configured_key_ids: configuredKeyIds,
      sealed_with_key_ids: sealedWith,
      remedy: CREDENTIALS_KEY_REMEDY,
    },
  });
}
