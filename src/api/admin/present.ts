/** How bots and channels are shown by the admin API: never a credential, only whether one is set. */
import { DEFAULT_MESSAGING_LIMIT } from '../../shared/whatsapp-messaging-limit.ts';
import { statesOf } from '../../shared/flows/flow-changes.ts';
import type { BotRecord, ChannelRecord, WebDetails } from '../../shared/bots/types.ts';

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
          business_account_id: secrets.details.business_account_id ?? null,
          messaging_limit: secrets.details.messaging_limit ?? DEFAULT_MESSAGING_LIMIT,
        }
      : {}),
    ...(secrets.type === 'web' ? presentWeb(publicBaseUrl, channel.appId, secrets.details) : {}),
  };
}

/** A web channel's origins and what an operator pastes into a page (docs/web-channel.md). */
function presentWeb(
  publicBaseUrl: string,
  appId: string,
  details: WebDetails,
): Record<string, unknown> {
  return {
    allowed_origins: details.allowed_origins,
    sessions_url: `${publicBaseUrl}/v2/web/${appId}/sessions`,
    events_url: `${publicBaseUrl}/v2/web/${appId}/events`,
    widget_url: `${publicBaseUrl}/v2/web/widget.js`,
    widget_snippet: `<script src="${publicBaseUrl}/v2/web/widget.js" data-app-id="${appId}" async></script>`,
  };
}

/**
 * A bot as the admin API shows it. A caller that may not read flows (`withFlow` false: agents,
 * docs/accounts.md) gets the names of its flow's states in place of the flow: the flow holds what
 * its HTTP steps send (API keys in headers).
 */
export function presentBot(
  publicBaseUrl: string,
  bot: BotRecord,
  withFlow = true,
): Record<string, unknown> {
  return {
    app_id: bot.appId,
    name: bot.name,
    language: bot.language,
    active: bot.active,
    handoff: bot.handoff ?? {},
    ...(withFlow ? { flow: bot.flow } : { states: Object.keys(statesOf(bot.flow)) }),
    flow_version: bot.flowVersion ?? null,
    created_at: bot.createdAt,
    updated_at: bot.updatedAt,
    // The console channel is the test chats' own, not one an operator added or could remove.
    channels: bot.channels
      .filter((c) => c.type !== 'console')
      .map((c) => presentChannel(publicBaseUrl, c)),
  };
}
