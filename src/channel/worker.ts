/** Wires `channel`: Postgres, the bot directory, the platform APIs, and the `channel` topic. */
import type { Config } from '../config.ts';
import { finishTurns } from '../shared/bot-turns.ts';
import type { MessageContext } from '../shared/bus/delivery.ts';
import type { Logger } from '../shared/logger.ts';
import type { Service } from '../shared/process.ts';
import { consume, createKit, openDirectory } from '../shared/worker-kit.ts';
import { Breaker, BREAKER_SCRIPTS } from './breaker.ts';
import { handleChatAction, type ChatAction } from './chat-action.ts';
import { Drainer } from './drainer.ts';
import { handleInbound, type ChannelIn } from './handle-inbound.ts';
import { handleOutbound, type ChannelOut } from './handle-outbound.ts';
import { createJsonPost } from './json-post.ts';
import { Pacer, PACING_SCRIPTS, whatsappNumberPace } from './pacing.ts';
import { startBroadcastWorker } from './broadcasts/worker.ts';
import { MessagingLimit } from '../shared/whatsapp-messaging-limit.ts';
import { recipientWrites } from './broadcasts/store.ts';
import { TelegramApi, WhatsAppApi } from './platform-api.ts';
import { VisitorStreams, WEB_SCRIPTS } from '../shared/web/visitor-stream.ts';
import { loadLanguageDetection } from '../shared/languages/detect.ts';
import { batchedRecords } from './store.ts';
import { transcriptEvents } from './transcript-events.ts';

export async function startChannel(
  config: Config,
  logger: Logger,
  overrides: { fetch?: typeof fetch } = {},
): Promise<Service> {
  if (!config.credentialsKey) throw new Error('CREDENTIALS_KEY is required');
  const kit = createKit(config, logger, {
    name: 'botwire-channel',
    scripts: { ...PACING_SCRIPTS, ...BREAKER_SCRIPTS, ...WEB_SCRIPTS },
  });
  const { db, directory } = await openDirectory(kit, config.credentialsKey);
  // A fetch given by a test carries every call; otherwise JSON calls use keep-alive node:http.
  const jsonPost = overrides.fetch ? undefined : createJsonPost();
  const apis = (timeoutMs: number) => {
    const http = {
      fetch: overrides.fetch ?? fetch,
      timeoutMs,
      ...(jsonPost ? { post: jsonPost } : {}),
    };
    return {
      telegram: new TelegramApi(config.providers.telegramApiUrl, http),
      whatsapp: new WhatsAppApi(config.providers.whatsappApiUrl, http),
    };
  };
  const { telegram, whatsapp } = apis(config.channel.sendTimeoutMs);
  // Each transcript row written is announced as a live `message` event. Inbound messages, the
  // look-ups before calls and the calls that ended share one group commit.
  const records = batchedRecords(db, transcriptEvents(kit.events));
  const web = new VisitorStreams({
    redis: kit.redis,
    prefix: config.stream.prefix,
    maxLen: config.web.streamMaxLen,
    ttlS: config.web.streamTtlS,
  });
  const inbound = {
    db,
    web,
    directory,
    telegram,
    record: records.recordInbound,
    skipLanguage: config.skipLanguage,
    optWords: config.channel.optWords,
  };
  if (config.skipLanguage) {
    logger.info('LANGUAGE_HOP=when_needed: text goes straight to flow');
    // channel detects every text then: the model is loaded now, not in the first user's turn
    // (with language doing it, channel never loads it: about 190 MB less).
    await loadLanguageDetection();
  }
  const breaker = new Breaker({
    redis: kit.redis,
    prefix: config.stream.prefix,
    failures: config.channel.breakerFailures,
    windowMs: config.channel.breakerWindowMs,
    openMs: config.channel.breakerOpenMs,
    openMaxMs: config.channel.breakerOpenMaxMs,
  });
  // 5xx and timeouts are not retried in place: the breaker and the consumer's retry handle them,
  // so a failing platform holds a handler slot for one call's timeout at most.
  const sending = {
    db,
    pacer: new Pacer(kit.redis),
    whatsappPace: whatsappNumberPace(config.channel.whatsappPerSecond),
    prefix: config.stream.prefix,
    directory,
    telegram,
    whatsapp,
    web,
    transientAttempts: 1,
    ledger: kit.redis,
    recorded: records.recorded,
    record: records.recordOutbound,
  };
  const outbound = { ...sending, breaker, suspect: apis(config.channel.suspectSendTimeoutMs) };
  const drainer = new Drainer({
    breaker,
    deps: sending,
    logger: logger.child({ part: 'drainer' }),
    holder: config.consumer.name,
  });
  const broadcasts = startBroadcastWorker(
    {
      redisUrl: config.redisUrl,
      ...(config.redisTlsCa ? { redisTlsCa: config.redisTlsCa } : {}),
      streamPrefix: config.stream.prefix,
      lockMs: config.channel.broadcastLockMs,
    },
    {
      sending,
      writes: recipientWrites(db),
      directory,
      log: logger.child({ part: 'broadcasts' }),
      inFlight: config.channel.broadcastInFlight,
      // A call other runs left under way has ended by then (one try, bounded by the timeout).
      staleMs: config.channel.sendTimeoutMs + 10_000,
      messagingLimit: new MessagingLimit(kit.redis, config.stream.prefix),
      publishToFlow: async (id, message) => {
        await kit.producer.publishOnce('flow', [{ id, message }], config.api.dedupeTtlS);
      },
    },
  );
  const service = await consume<ChannelIn | ChannelOut | ChatAction>(
    kit,
    'channel',
    async (message, context: MessageContext) => {
      if (message.intent === 'chat_action') return handleChatAction(inbound, message, context);
      if (message.intent !== 'channel_in') return handleOutbound(outbound, message, context);
      const out = await handleInbound(inbound, message, context);
      // Nothing goes on (a status, a redelivery, a switched-off bot): the turn is finished.
      if (out.length === 0) {
        await finishTurns(kit.redis, config.stream.prefix, message.bot_input.app_id, [
          message.turn_id,
        ]).catch(() => undefined);
      }
      return out;
    },
    [
      () => broadcasts.close(),
      () => drainer.close(),
      () => directory.close(),
      () => db.destroy(),
      () => Promise.resolve(jsonPost?.close()),
    ],
  );
  drainer.start();
  return service;
}
