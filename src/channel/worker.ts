/** Wires `channel`: Postgres, the bot directory, the platform APIs, and the `channel` topic. */
import type { Config } from '../config.ts';
import type { MessageContext } from '../shared/bus/consumer.ts';
import type { Logger } from '../shared/logger.ts';
import type { Service } from '../shared/process.ts';
import { consume, createKit, openDirectory } from '../shared/worker-kit.ts';
import { handleInbound, type ChannelIn } from './handle-inbound.ts';
import { handleOutbound, type ChannelOut } from './handle-outbound.ts';
import { createJsonPost } from './json-post.ts';
import { Pacer, PACING_SCRIPTS } from './pacing.ts';
import { TelegramApi, WhatsAppApi } from './platform-api.ts';
import { batchedRecordedOutbound, batchedRecordInbound, batchedRecordOutbound } from './store.ts';

export async function startChannel(
  config: Config,
  logger: Logger,
  overrides: { fetch?: typeof fetch } = {},
): Promise<Service> {
  if (!config.credentialsKey) throw new Error('CREDENTIALS_KEY is required');
  const kit = createKit(config, logger, { name: 'botwire-channel', scripts: PACING_SCRIPTS });
  const { db, directory } = await openDirectory(kit, config.credentialsKey);
  // A fetch given by a test carries every call; otherwise JSON calls use keep-alive node:http.
  const jsonPost = overrides.fetch ? undefined : createJsonPost();
  const http = { fetch: overrides.fetch ?? fetch, ...(jsonPost ? { post: jsonPost } : {}) };
  const telegram = new TelegramApi(config.providers.telegramApiUrl, http);
  const whatsapp = new WhatsAppApi(config.providers.whatsappApiUrl, http);
  const inbound = {
    db,
    directory,
    telegram,
    record: batchedRecordInbound(db),
    skipLanguage: config.skipLanguage,
  };
  if (config.skipLanguage) logger.info('LANGUAGE_HOP=when_needed: text goes straight to flow');
  const outbound = {
    db,
    pacer: new Pacer(kit.redis),
    prefix: config.stream.prefix,
    directory,
    telegram,
    whatsapp,
    recorded: batchedRecordedOutbound(db),
    record: batchedRecordOutbound(db),
  };
  return consume<ChannelIn | ChannelOut>(
    kit,
    'channel',
    async (message, context: MessageContext) =>
      message.intent === 'channel_in'
        ? handleInbound(inbound, message, context)
        : handleOutbound(outbound, message, context),
    [() => directory.close(), () => db.destroy(), () => Promise.resolve(jsonPost?.close())],
  );
}
