/** Wires `channel`: Postgres, the bot directory, the platform APIs, and the `channel` topic. */
import type { Config } from '../config.ts';
import { BotDirectory } from '../shared/bots/directory.ts';
import { BotStore } from '../shared/bots/store.ts';
import type { MessageContext } from '../shared/bus/consumer.ts';
import { createDb } from '../shared/db.ts';
import type { Logger } from '../shared/logger.ts';
import type { Service } from '../shared/process.ts';
import { consume, createKit } from '../shared/worker-kit.ts';
import { handleInbound, type ChannelIn } from './handle-inbound.ts';
import { handleOutbound, type ChannelOut } from './handle-outbound.ts';
import { TelegramApi, WhatsAppApi } from './platform-api.ts';

export async function startChannel(
  config: Config,
  logger: Logger,
  overrides: { fetch?: typeof fetch } = {},
): Promise<Service> {
  if (!config.credentialsKey) throw new Error('CREDENTIALS_KEY is required');
  const kit = createKit(config, logger, 'botwire-channel');
  const db = createDb(config.databaseUrl, { poolMax: config.databasePoolMax });
  const directory = new BotDirectory({
    store: new BotStore({ db, credentialsKey: config.credentialsKey }),
    redis: kit.redis,
    prefix: config.stream.prefix,
    logger,
  });
  await directory.start();
  const http = { fetch: overrides.fetch ?? fetch };
  const telegram = new TelegramApi(config.providers.telegramApiUrl, http);
  const whatsapp = new WhatsAppApi(config.providers.whatsappApiUrl, http);
  const inbound = { db, directory, telegram };
  const outbound = {
    db,
    redis: kit.redis,
    prefix: config.stream.prefix,
    directory,
    telegram,
    whatsapp,
  };
  return consume<ChannelIn | ChannelOut>(
    kit,
    'channel',
    async (message, context: MessageContext) =>
      message.intent === 'channel_in'
        ? handleInbound(inbound, message, context)
        : handleOutbound(outbound, message, context),
    [() => directory.close(), () => db.destroy()],
  );
}
