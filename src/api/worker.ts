/**
 * Wires the edge: Redis (failing fast, so a Redis outage answers 503 at once), Postgres, the bot
 * directory, the producer and the HTTP server.
 */
import { createKnowledgeSearch } from '../shared/knowledge/knowledge-search.ts';
import { createServer, type Server } from 'node:http';
import type { Config } from '../config.ts';
import type { Knex } from '../shared/db.ts';
import type { Logger } from '../shared/logger.ts';
import type { Service } from '../shared/process.ts';
import { BOT_TURN_SCRIPTS } from '../shared/bot-turns.ts';
import { checkRedisAtStart, createKit, openDirectory } from '../shared/worker-kit.ts';
import { HealthFile } from '../shared/health-file.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { createApp, readiness } from './app.ts';
import { pruneAudit } from './audit/store.ts';
import { pruneAnalytics } from './analytics/store.ts';
import { pruneBroadcasts } from './broadcasts/store.ts';
import { RetentionPruner } from './retention-pruner.ts';
import { BacklogGauge, topicDepths } from './backlog.ts';
import { Heartbeat, membersKey } from '../shared/bus/members.ts';
import { TOPICS } from '../shared/bus/topics.ts';
import { BotwireError } from '../shared/errors.ts';
import { BroadcastQueue } from '../shared/broadcasts/queue.ts';
import { ConversationTestQueue } from '../shared/flows/conversation-test-queue.ts';
import type { Edge } from './edge.ts';
import { limitConnections } from './connections.ts';
import { CONSOLE_DIST } from './console/static.ts';
import { createMetrics } from './metrics.ts';
import { handoffMetrics, readHandoffFigures } from './handoff-metrics.ts';
import { llmMetrics } from './llm-metrics.ts';
import { EventHub } from './events/hub.ts';
import { BurstLog } from './burst-log.ts';
import { createRedis, duplicateRedis, isCluster, whenReady } from '../shared/redis.ts';
import { MessagingLimit } from '../shared/whatsapp-messaging-limit.ts';
import type Koa from 'koa';
import { endStreamsOfChangedBots } from './web/bot-changes.ts';
import { VisitorHub } from './web/visitor-hub.ts';
import { Passwords, type Kdf } from './admin/passwords.ts';

/** How long the api waits at start for its first Redis connection before starting unready (ms). */
const STARTUP_REDIS_WAIT_MS = 5000;

export interface RunningApi extends Service {
  /** The port listened on (useful with API_PORT=0). */
  port: number;
  /** The edge's Postgres pool (its `query` events show what reaches Postgres). */
  db: Knex;
  /** The Koa application (its routers list the routes: test/api/permissions.test.ts walks them). */
  app: Koa;
}

export async function startApi(
  config: Config,
  logger: Logger,
  overrides: { fetch?: typeof fetch; consoleDir?: string; kdf?: Kdf } = {},
): Promise<RunningApi> {
  if (!config.credentialsKey) throw new Error('CREDENTIALS_KEY is required');
  // Topic depths for /metrics, read on each scrape through the edge's Redis (made just below).
  const metrics = createMetrics(() =>
    topicDepths(kit.redis, config.stream.prefix, config.stream.partitions, TOPICS),
  );
  // Fails fast so a Redis outage answers 503 at once; auto-pipelining coalesces the commands of
  // concurrent requests into one socket write.
  const kit = createKit(config, logger, {
    name: 'botwire-api',
    failFast: true,
    enableAutoPipelining: true,
    scripts: BOT_TURN_SCRIPTS,
    onPublished: (topic) => metrics.published.inc({ topic }),
    onEventLost: (type) => metrics.eventsLost.inc({ type }),
  });
  const { redis, schemas, producer, events } = kit;
  // The first connect: the connection fails fast (no offline queue), so the check below would
  // otherwise be refused while it is still being made.
  await whenReady(redis, STARTUP_REDIS_WAIT_MS);
  // No start on a cluster named as one server (BW_ERR_CONFIG), and no intake into the new layout
  // while the former one still holds work (BW_ERR_LAYOUT). When Redis cannot be reached at start
  // the checks cannot run: the api starts unready as before (every worker runs the same checks
  // once Redis answers, and refuses then).
  await checkRedisAtStart(redis, config).catch((error: unknown) => {
    if (
      error instanceof BotwireError &&
      (error.code === 'BW_ERR_LAYOUT' || error.code === 'BW_ERR_CONFIG')
    ) {
      redis.disconnect();
      throw error;
    }
    logger.warn(
      { err: error },
      'could not check Redis and its stream key layout: Redis is unavailable',
    );
  });
  // A write the edge must see on replicas goes with its WAIT on a connection of its own: a WAIT
  // holds its connection until the replicas answer, and on the shared one every other command for
  // that node would wait behind it while a master has no replica.
  const waitRedis =
    config.api.replicaWait.replicas > 0
      ? duplicateRedis(redis, {
          connectionName: 'botwire-api-replica-wait',
          enableAutoPipelining: false,
        })
      : undefined;
  if (waitRedis) await whenReady(waitRedis, STARTUP_REDIS_WAIT_MS);
  // Callback ids come from anyone: unknown ones are answered from the directory, not Postgres.
  const { db, store, directory } = await openDirectory(kit, config.credentialsKey, {
    trustCurrentView: true,
    missTtlMs: config.api.unknownIdTtlMs,
    maxMisses: config.api.unknownIdCacheSize,
  });
  const handoffs = handoffMetrics(metrics.registry, () => readHandoffFigures(db));
  llmMetrics(metrics.registry, redis, config.stream.prefix);
  const backlog = new BacklogGauge({
    redis,
    prefix: config.stream.prefix,
    partitions: config.stream.partitions,
    max: config.api.maxBacklog,
    logger,
  });
  backlog.start();
  const eventHub = new EventHub({
    redis,
    prefix: config.stream.prefix,
    maxClients: config.events.maxClients,
    logger: logger.child({ part: 'events' }),
    onClients: (count) => metrics.eventClients.set(count),
  });
  // Web event streams: one reader for all of them, on a connection of its own; on a cluster, with
  // a subscriber to the appends' announcements (sharded pub/sub, see VisitorHub).
  const webReader = createRedis(config.redisUrl, {
    name: 'botwire-api-web-events',
    tlsCaFile: config.redisTlsCa,
  });
  const hub = new VisitorHub({
    reader: webReader,
    ...(isCluster(webReader)
      ? { subscriber: webReader.duplicate(undefined, { shardedSubscribers: true }) }
      : {}),
    control: redis,
    maxClients: config.web.maxEventStreams,
    maxPerVisitor: config.web.maxStreamsPerVisitor,
    onClients: (count) => metrics.webStreams.set(count),
    logger: logger.child({ part: 'web-events' }),
  });
  // The api reads no topic, so no lease round keeps it in a member set: it heartbeats on its own
  // (GET /v2/ops/processes lists it).
  const heartbeat = new Heartbeat({
    redis,
    key: membersKey(config.stream.prefix, 'api'),
    name: config.consumer.name,
    ttlMs: config.consumer.leaseMs,
    logger,
  });
  heartbeat.start();
  let draining = false;
  const knowledge = createKnowledgeSearch(
    config,
    db,
    overrides.fetch ? { fetch: overrides.fetch } : {},
  );
  // Conversation tests are run by flow; the api asks and waits (its connections open at the first run).
  const testQueue = new ConversationTestQueue({
    redisUrl: config.redisUrl,
    redisTlsCa: config.redisTlsCa,
    streamPrefix: config.stream.prefix,
  });
  // Broadcasts are run by channel; the api starts them (its connections open at the first).
  const broadcastQueue = new BroadcastQueue({
    redisUrl: config.redisUrl,
    redisTlsCa: config.redisTlsCa,
    streamPrefix: config.stream.prefix,
  });
  const edge: Edge = {
    redis,
    db,
    producer,
    events,
    eventHub,
    schemas,
    directory,
    store,
    prefix: config.stream.prefix,
    partitions: config.stream.partitions,
    streamMaxLen: config.stream.maxLen,
    heartbeatMs: config.consumer.leaseMs,
    llmDailyTokens: config.flow.llmDailyTokens,
    bodyLimitBytes: config.api.bodyLimitBytes,
    bodyTimeoutMs: config.api.timeouts.bodyMs,
    authMaxFailures: config.api.authMaxFailures,
    authFailureWindowS: config.api.authFailureWindowS,
    accountMaxFailures: config.api.accountMaxFailures,
    consoleSessionTtlS: config.api.consoleSessionTtlS,
    auditLost: () => metrics.auditLost.inc(),
    inviteTtlS: config.api.inviteTtlS,
    passwords: new Passwords(overrides.kdf),
    consoleDir: overrides.consoleDir ?? CONSOLE_DIST,
    uploadQuota: config.api.uploadQuota,
    dedupeTtlS: config.api.dedupeTtlS,
    replicaWait: { ...config.api.replicaWait, ...(waitRedis ? { redis: waitRedis } : {}) },
    adminApiKey: config.api.adminApiKey,
    publicBaseUrl: config.api.publicBaseUrl,
    telegramApiUrl: config.providers.telegramApiUrl,
    whatsappApiUrl: config.providers.whatsappApiUrl,
    storageDir: config.knowledge.storageDir,
    knowledge,
    maxDocumentBytes: config.knowledge.maxDocumentBytes,
    fetch: overrides.fetch ?? fetch,
    overloaded: () => backlog.overloaded,
    draining: () => draining,
    botBacklog: {
      max: config.api.maxBotBacklog,
      horizonMs: config.api.botTurnHorizonS * 1000,
      waitMs: config.api.botBacklogWaitMs,
    },
    publishWaitMs: config.api.publishWaitMs,
    warnings: new BurstLog(logger),
    web: { tokenTtlS: config.web.tokenTtlS, hub },
    tests: { queue: testQueue, timeoutMs: config.api.testsRunTimeoutMs },
    broadcasts: broadcastQueue,
    messagingLimit: new MessagingLimit(redis, config.stream.prefix),
    onAgentFirstReply: handoffs.firstReply,
  };
  endStreamsOfChangedBots(edge);
  // Rows that grow with use, each kept for its retention (0 keeps them forever).
  const pruners = (
    [
      ['audit', pruneAudit, config.api.auditRetentionDays],
      ['analytics', pruneAnalytics, config.api.analyticsRetentionDays],
      ['broadcast', pruneBroadcasts, config.api.broadcastRetentionDays],
    ] as const
  ).map(
    ([what, prune, retentionDays]) =>
      new RetentionPruner({
        db,
        what: `${what} rows`,
        prune,
        retentionDays,
        logger: logger.child({ part: `${what}-retention` }),
      }),
  );
  for (const pruner of pruners) pruner.start();
  const app = createApp(edge, logger, metrics);
  const handle = app.callback();
  const { timeouts } = config.api;
  // Node checks the header and request deadlines every connectionsCheckingInterval; the default
  // 30 s would let a slow client hold on far past them.
  const server: Server = createServer(
    {
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: Math.min(1000, timeouts.headersMs),
    },
    (req, res) => void handle(req, res),
  );
  server.keepAliveTimeout = timeouts.keepAliveMs;
  let refusedLogged = 0;
  limitConnections(server, {
    maxTotal: config.api.maxConnections,
    maxPerAddress: config.api.maxConnectionsPerAddress,
    onRefused: (address) => {
      // At most one line a minute: a flood must not turn into a flood of logs.
      if (Date.now() - refusedLogged < 60_000) return;
      refusedLogged = Date.now();
      logger.warn(
        { address, limit: config.api.maxConnectionsPerAddress },
        'connections refused: EDGE_MAX_CONNECTIONS_PER_ADDRESS reached',
      );
    },
  });
  server.on('drop', () => {
    if (Date.now() - refusedLogged < 60_000) return;
    refusedLogged = Date.now();
    logger.warn(
      { limit: config.api.maxConnections },
      'connections refused: EDGE_MAX_CONNECTIONS reached',
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.api.port, config.api.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.api.port;
  logger.info({ port }, 'listening');
  const health = config.health.file
    ? new HealthFile({
        path: config.health.file,
        intervalMs: config.health.intervalMs,
        component: 'api',
        pid: process.pid,
        logger,
        probe: async () => (await readiness(edge)).checks,
        url: `http://127.0.0.1:${port}/healthz`,
      })
    : undefined;
  health?.start();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const step = async (what: string, fn: () => Promise<unknown>): Promise<void> => {
        try {
          await fn();
        } catch (error) {
          logger.warn({ err: error }, `close: ${what} failed`);
        }
      };
      // Readiness first: /readyz answers 503 for API_DRAIN_DELAY_MS while requests are still
      // served, so the load balancer stops sending callbacks before the server stops taking them.
      draining = true;
      await step('health file', async () => health?.stopping());
      if (config.api.drainDelayMs > 0) {
        logger.info({ drainDelayMs: config.api.drainDelayMs }, 'draining: /readyz answers 503');
        await sleep(config.api.drainDelayMs);
      }
      // Event streams never end on their own: ended first, or the server would wait for them.
      await step('event streams', () => eventHub.close());
      await step('web event streams', () => hub.close());
      // Stop accepting, let in-flight requests finish (they publish before answering).
      await step(
        'http server',
        () =>
          new Promise<void>((resolve, reject) => {
            server.close((error) => (error ? reject(error) : resolve()));
            server.closeIdleConnections();
          }),
      );
      backlog.stop();
      for (const pruner of pruners) await step(`${pruner.what} retention`, () => pruner.stop());
      await step('heartbeat', () => heartbeat.stop());
      await step('test queue', () => testQueue.close());
      await step('broadcast queue', () => broadcastQueue.close());
      await step('bot directory', () => directory.close());
      await step('redis', () => redis.quit());
      if (waitRedis) await step('replica wait connection', () => waitRedis.quit());
      await step('embedding model', () => knowledge.close());
      await step('postgres', () => db.destroy());
      await step('health file', async () => health?.stop());
    })();
    return closing;
  };
  return { port, close, db, app, drainDelayMs: config.api.drainDelayMs };
}
