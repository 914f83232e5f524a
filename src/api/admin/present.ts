/** How bots and channels are shown by the admin API: never a credential, only whether one is set. */
import type { BotRecord, ChannelRecord } from '../../shared/bots/types.ts';

export function callbackUrl(publicBaseUrl: string, channel: ChannelRecord): string {
  return `${publicBaseUrl}/v2/callback/${channel.type}/${channel.appId}`;
}

export function presentChannel(
  publicBaseUrl: string,
  channel: ChannelRecord,
): Record<string, unknown> {
  const base = {
    id: channel.id,
    type: channel.type,
    callback_url: callbackUrl(publicBaseUrl, channel),
    webhook_registered_at: channel.webhookRegisteredAt,
    created_at: channel.createdAt,
  };
  // Credentials that do not open with the configured keys: shown as such, the rest of the bot still is.
  if (channel.unreadable) return { ...base, credentials: 'unreadable' };
  const secrets = channel.secrets;
  return {
    ...base,
    ...(secrets.type === 'whatsapp'
      ? {
          phone_number_id: secrets.details.phone_number_id,
          has_app_secret: Boolean(secrets.details.app_secret),
          has_verify_token: Boolean(secrets.details.verify_token),
        }
      : {}),
  };
}

export function presentBot(publicBaseUrl: string, bot: BotRecord): Record<string, unknown> {
  return {
    app_id: bot.appId,
    name: bot.name,
    language: bot.language,
    active: bot.active,
    flow: bot.flow,
    flow_version: bot.flowVersion ?? null,
    created_at: bot.createdAt,
    updated_at: bot.updatedAt,
    channels: bot.channels.map((c) => presentChannel(publicBaseUrl, c)),
  };
}
