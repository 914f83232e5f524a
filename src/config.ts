/**
 * The one place that reads settings. Every key is declared here with its type, default, unit and
 * meaning; `.env-dev.template` is generated from this table (`npm run env:template`), and a test
 * checks the two agree. `loadConfig` is given the environment by `main.ts`, the only code that
 * touches `process`.
 */
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { maskUrl } from './shared/logger.ts';
import { isClusterUrl, parseRedisUrl } from './shared/redis.ts';
import { hostname } from 'node:os';
import type { EmbeddingSettings } from './shared/embeddings/embedders.ts';

type Kind = 'string' | 'integer' | 'url' | 'secret';

interface Setting {
  kind: Kind;
  /** Used when the key is unset or empty; a setting without a default is required. */
  default?: string | number;
  /** One line for the env template and the docs: meaning, unit, range. */
  doc: string;
  min?: number;
  max?: number;
  pattern?: string;
  enum?: readonly string[];
  /** Components that cannot start without it (when it has no default). */
  requiredBy?: readonly string[];
}

/** Every setting botwire reads, in the order the env template lists them. */
export const SETTINGS = {
  LOG_LEVEL: {
    kind: 'string',
    default: 'info',
    enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    doc: 'pino log level: fatal, error, warn, info, debug, trace or silent.',
  },
  REDIS_URL: {
    kind: 'url',
    default: 'redis://127.0.0.1:6379',
    pattern: '^rediss?(\\+cluster)?://',
    doc: 'Redis holding the topics (streams), dedupe keys and BullMQ jobs: one server as redis[s]://[user:password@]host:port[/db], or a Redis Cluster as redis[s]+cluster://[user:password@]host:port[,host:port...] (a few of its nodes; the rest are found from them). rediss uses TLS; user and password apply to every node (docs/operations.md).',
  },
  REDIS_TLS_CA: {
    kind: 'string',
    default: '',
    doc: "PEM file of the certificate authority that signed the Redis servers' certificates, for rediss:// and rediss+cluster:// (every node of a cluster); empty: the system's trusted authorities. For a Redis with a private CA (docs/deployment.md).",
  },
  DATABASE_URL: {
    kind: 'url',
    default: 'postgres://postgres:postgres@localhost:5432/botwire',
    pattern: '^postgres(ql)?://',
    doc: 'Postgres for bots, conversations, state and knowledge: postgres://user:password@host:port/database.',
  },
  DATABASE_POOL_MAX: {
    kind: 'integer',
    default: 10,
    min: 1,
    max: 200,
    doc: 'Most Postgres connections one process keeps open (count).',
  },
  DATABASE_STATEMENT_TIMEOUT_MS: {
    kind: 'integer',
    default: 30000,
    min: 0,
    doc: 'Longest a Postgres statement may run before the server cancels it (milliseconds; 0 leaves it to the server or role statement_timeout, e.g. behind PgBouncer). The indexer uses INDEXER_STATEMENT_TIMEOUT_MS instead. See docs/operations.md.',
  },
  DATABASE_IDLE_TRANSACTION_TIMEOUT_MS: {
    kind: 'integer',
    default: 60000,
    min: 0,
    doc: 'Longest a Postgres transaction may sit idle between statements before the server ends the session, releasing its locks (milliseconds; 0 leaves it to the server or role setting).',
  },
  DATABASE_CONNECT_TIMEOUT_MS: {
    kind: 'integer',
    default: 10000,
    min: 100,
    doc: 'Longest opening one Postgres connection may take before it fails (milliseconds).',
  },
  STREAM_PREFIX: {
    kind: 'string',
    default: 'botwire',
    pattern: '^[A-Za-z0-9_.:-]{1,64}$',
    doc: "Prefix of every Redis key; a partition's keys are <prefix>:{<topic>:p<n>}... so each partition stays in one Redis Cluster slot.",
  },
  TOPIC_PARTITIONS: {
    kind: 'integer',
    default: 8,
    min: 1,
    max: 256,
    doc: 'Partition streams per topic: the most processes of one component that share its load. A conversation stays in one partition, which keeps its order. Set it once: changing it moves keys to other partitions.',
  },
  STREAM_MAXLEN: {
    kind: 'integer',
    default: 1000000,
    min: 1000,
    doc: 'Approximate length each partition stream is trimmed to on XADD (entries). Keep it above the largest backlog you expect: trimming drops the oldest entries even if unread.',
  },
  CONSUMER_NAME: {
    kind: 'string',
    default: '',
    pattern: '^[A-Za-z0-9_.:-]{0,128}$',
    doc: 'Name of this process in its consumer groups, unique among running processes; empty means <hostname>-<pid>.',
  },
  CONSUMER_BATCH_SIZE: {
    kind: 'integer',
    default: 64,
    min: 1,
    max: 10000,
    doc: 'Entries read per partition stream by one XREADGROUP call (its COUNT, which applies to each stream named).',
  },
  CONSUMER_CONCURRENCY: {
    kind: 'integer',
    default: 16,
    min: 1,
    max: 1024,
    doc: 'Messages one process handles at once; messages with the same ordering key are still handled one after another (count).',
  },
  CONSUMER_BOT_CONCURRENCY: {
    kind: 'integer',
    default: 0,
    min: 0,
    max: 1024,
    doc: 'Messages of one bot one process handles at once, at most CONSUMER_CONCURRENCY; the other handler slots stay free for the other bots, so one bot whose handlers hang cannot hold them all. 0 means half of CONSUMER_CONCURRENCY, rounded up (count).',
  },
  CONSUMER_BLOCK_MS: {
    kind: 'integer',
    default: 2000,
    min: 10,
    max: 60000,
    doc: 'How long one XREADGROUP waits for new entries before looping (milliseconds).',
  },
  CONSUMER_LINGER_MS: {
    kind: 'integer',
    default: 0,
    min: 0,
    max: 100,
    doc: 'After a read that found new entries, fewer in all than CONSUMER_BATCH_SIZE, how long a consumer waits before reading again, so that entries arriving meanwhile are handled and committed together; adds up to this much latency per hop (milliseconds).',
  },
  CONSUMER_LEASE_MS: {
    kind: 'integer',
    default: 10000,
    min: 300,
    max: 600000,
    doc: 'Lease on a topic partition (milliseconds): renewed every sixth of it; when a process dies, its partitions pass to the others after at most this long.',
  },
  CONSUMER_LEASE_REPLICAS: {
    kind: 'integer',
    default: 0,
    min: 0,
    doc: 'Replicas that must acknowledge a partition lease taken or renewed before a consumer counts it (Redis WAIT after the lease write, on the same node, for up to a twentieth of CONSUMER_LEASE_MS, at least 75 ms). 0 (the default) waits for none: a Redis Cluster master frozen past its failover that then resumes can, for an instant, hand a partition to a second reader. Set 1 where every master has a replica (docs/operations.md); while a master has none, its partitions are not read (count).',
  },
  CONSUMER_RETRY_BASE_MS: {
    kind: 'integer',
    default: 500,
    min: 1,
    max: 60000,
    doc: 'First retry delay after a handler fails (milliseconds); doubled on each further delivery, at most 30 s.',
  },
  CONSUMER_MAX_DELIVERIES: {
    kind: 'integer',
    default: 5,
    min: 1,
    max: 1000,
    doc: 'Deliveries after which a failing entry is moved to the dead-letter stream of its partition, <prefix>:{<topic>:p<n>}:dead (count).',
  },
  API_HOST: {
    kind: 'string',
    default: '0.0.0.0',
    doc: 'Address the HTTP edge (component api) listens on.',
  },
  API_PORT: {
    kind: 'integer',
    default: 8000,
    min: 0,
    max: 65535,
    doc: 'Port of the HTTP edge: platform callbacks, admin API, health and metrics (0 picks a free port).',
  },
  PUBLIC_BASE_URL: {
    kind: 'url',
    default: 'http://localhost:8000',
    pattern: '^https?://[^\\s]+[^/]$',
    doc: 'Public https base URL the platforms reach this edge at (no trailing slash); callback URLs and webhooks are built from it.',
  },
  ADMIN_API_KEY: {
    kind: 'secret',
    pattern: '^\\S{32,}$',
    requiredBy: ['api'],
    doc: 'Bearer token of the admin API (at least 32 characters; setup generates one). Secret.',
  },
  CREDENTIALS_KEY: {
    kind: 'secret',
    pattern: '^[A-Za-z0-9+/]{43}=$',
    requiredBy: ['api', 'channel', 'flow'],
    doc: 'AES-256-GCM key sealing channel credentials at rest: 32 random bytes, base64 (`openssl rand -base64 32`). Also required by language when SPEECH_API_URL is set. Secret; changing it makes stored credentials unreadable.',
  },
  CREDENTIALS_KEY_PREVIOUS: {
    kind: 'secret',
    default: '',
    pattern: '^([A-Za-z0-9+/]{43}=(\\s*,\\s*[A-Za-z0-9+/]{43}=)*)?$',
    doc: 'Earlier CREDENTIALS_KEY values, comma separated (each 32 bytes, base64; empty: none): they still open stored channel credentials, new ones are always sealed with CREDENTIALS_KEY. Set during a key rotation until ./scripts/rotate-credentials-key.sh has re-sealed every channel (docs/operations.md). Secret.',
  },
  HTTP_BODY_LIMIT_BYTES: {
    kind: 'integer',
    default: 1048576,
    min: 1024,
    max: 67108864,
    doc: 'Largest JSON body the edge accepts (bytes); larger ones get 413.',
  },
  DEDUPE_TTL_S: {
    kind: 'integer',
    default: 86400,
    min: 60,
    doc: 'How long the edge remembers a platform update id to drop redeliveries (seconds). Each id costs about 180 bytes of Redis memory for this long (docs/operations.md); older redeliveries are still caught by channel, which records every platform message id in Postgres.',
  },
  EDGE_MAX_BACKLOG: {
    kind: 'integer',
    default: 1000,
    min: 0,
    doc: 'Backpressure: while more than this many messages wait in the channel, language and flow topics (unread plus unacknowledged, sampled every 250 ms while callbacks arrive or the figure is over the limit), the edge answers platform callbacks 503 with Retry-After, so the platform retries later instead of the backlog growing without bound (count; 0 turns it off).',
  },
  EDGE_WAIT_REPLICAS: {
    kind: 'integer',
    default: 0,
    min: 0,
    doc: 'Replicas that must hold an accepted platform callback before the edge answers 200 (Redis WAIT after its publish, on the same node); fewer within EDGE_WAIT_TIMEOUT_MS answer 503 and the platform sends it again. 0 (the default) waits for none: a master that dies before replicating loses callbacks it accepted. Set 1 where every master has a replica (docs/operations.md) (count).',
  },
  EDGE_WAIT_TIMEOUT_MS: {
    kind: 'integer',
    default: 100,
    min: 1,
    doc: 'How long the edge waits for EDGE_WAIT_REPLICAS replicas to acknowledge a callback before it answers 503 (milliseconds).',
  },
  EDGE_PUBLISH_WAIT_MS: {
    kind: 'integer',
    default: 2000,
    min: 1,
    doc: "Longest the edge waits for Redis to take a callback's publish, beside any EDGE_WAIT_TIMEOUT_MS: past it the callback is answered 503 BW_ERR_UNAVAILABLE and the platform sends it again, as while a Redis Cluster slot has no master (a publish that still lands is found seen on the retry and counts once) (milliseconds).",
  },
  EDGE_BOT_BACKLOG_WAIT_MS: {
    kind: 'integer',
    default: 200,
    min: 1,
    doc: "On a Redis Cluster, longest the edge waits to read a bot's backlog for EDGE_MAX_BOT_BACKLOG: past it, or when the read fails, the callback is taken uncounted, so a bot's intake never waits on the one master holding its count while the partition its conversation goes to is served. On one Redis server the publish script reads the count itself (milliseconds).",
  },
  EDGE_MAX_BOT_BACKLOG: {
    kind: 'integer',
    default: 500,
    min: 0,
    doc: "Per-bot backpressure: while more than this many of one bot's turns wait (published by the edge and not finished, plus its replies parked for a failing platform), the edge answers that bot's callbacks 503 with Retry-After (BW_ERR_BOT_OVERLOADED); other bots are not affected. On one Redis server the count is checked by the publish script itself; on a cluster it costs the edge one script per bot and one XLEN per channel per callback, before the publish (0 turns it off).",
  },
  EDGE_BOT_TURN_HORIZON_S: {
    kind: 'integer',
    default: 300,
    min: 10,
    doc: "How long a turn the edge published counts in its bot's backlog when nothing marks it finished (a turn that ends in flow with no reply, or is dead-lettered): the per-bot count heals itself after this long. Keep it above the longest normal turn (seconds).",
  },
  WEB_TOKEN_TTL_S: {
    kind: 'integer',
    default: 604800,
    min: 60,
    max: 31536000,
    doc: 'Lifetime of a web channel visitor token (seconds; default 7 days). The widget renews its token before it expires; an expired token is refused with 401 BW_ERR_TOKEN_EXPIRED and the visitor starts afresh (docs/web-channel.md).',
  },
  WEB_MAX_EVENT_STREAMS: {
    kind: 'integer',
    default: 2000,
    min: 1,
    max: 100000,
    doc: 'Most open web event streams (GET /v2/web/<app_id>/events) one api process serves at once, shared fairly between bots; more are refused with 503 BW_ERR_TOO_MANY_STREAMS. All of them share one Redis connection (count).',
  },
  WEB_MAX_STREAMS_PER_VISITOR: {
    kind: 'integer',
    default: 5,
    min: 1,
    max: 1000,
    doc: 'Most web event streams one visitor (all its tokens) holds open on one api process at once, as many tabs; more are refused with 429 BW_ERR_VISITOR_STREAMS (count).',
  },
  WEB_STREAM_MAXLEN: {
    kind: 'integer',
    default: 200,
    min: 10,
    max: 10000,
    doc: "Messages kept in one web visitor's event stream, approximately: what a new tab replays and how far back a reconnect can resume (count).",
  },
  WEB_STREAM_TTL_S: {
    kind: 'integer',
    default: 604800,
    min: 60,
    doc: "How long a web visitor's event stream is kept after its last message (seconds; default 7 days).",
  },
  CHANNEL_SEND_TIMEOUT_MS: {
    kind: 'integer',
    default: 10000,
    min: 50,
    max: 120000,
    doc: 'Longest one platform call (Telegram, WhatsApp) may take before it counts as failed (milliseconds); multipart uploads get three times this.',
  },
  CHANNEL_SUSPECT_SEND_TIMEOUT_MS: {
    kind: 'integer',
    default: 2000,
    min: 50,
    max: 120000,
    doc: 'The shorter timeout of a call made by a channel handler for a platform account that has failed within CHANNEL_BREAKER_WINDOW_MS, so a platform that stops answering holds handler slots this long rather than CHANNEL_SEND_TIMEOUT_MS (milliseconds).',
  },
  CHANNEL_BREAKER_FAILURES: {
    kind: 'integer',
    default: 5,
    min: 1,
    max: 1000,
    doc: "Circuit breaker: failed platform calls (timeouts, 5xx, refused connections) of one bot's platform account within CHANNEL_BREAKER_WINDOW_MS that open its breaker; its replies are then parked and sent by channel's drainer when the platform answers again (count).",
  },
  CHANNEL_BREAKER_WINDOW_MS: {
    kind: 'integer',
    default: 30000,
    min: 100,
    doc: 'The window over which CHANNEL_BREAKER_FAILURES are counted (milliseconds).',
  },
  CHANNEL_BREAKER_OPEN_MS: {
    kind: 'integer',
    default: 2000,
    min: 10,
    doc: 'How long an open breaker waits before the drainer tries one parked reply (half-open probe); doubled after each failed probe up to CHANNEL_BREAKER_OPEN_MAX_MS (milliseconds).',
  },
  CHANNEL_BREAKER_OPEN_MAX_MS: {
    kind: 'integer',
    default: 60000,
    min: 10,
    doc: 'Longest wait between two probes of a failing platform account (milliseconds).',
  },
  WHATSAPP_MESSAGES_PER_SECOND: {
    kind: 'integer',
    default: 80,
    min: 1,
    max: 1000,
    doc: "Messages a second one WhatsApp number may send (Meta's default throughput is 80; an upgraded number up to 1000). Replies and broadcasts share it; replies go first (docs/outbound.md).",
  },
  BROADCAST_SENDS_IN_FLIGHT: {
    kind: 'integer',
    default: 16,
    min: 1,
    max: 256,
    doc: "Platform calls one broadcast has under way at once in a channel process: enough to fill the number's pace while each call takes the platform's round trip (docs/outbound.md).",
  },
  BROADCAST_LOCK_MS: {
    kind: 'integer',
    default: 30000,
    min: 1000,
    max: 600000,
    doc: 'How long a channel process holds a running broadcast without renewing it; a process that died gives it up after this long, and another takes it on where it stopped (milliseconds).',
  },
  OPT_OUT_WORDS: {
    kind: 'string',
    default: 'stop,unsubscribe',
    doc: 'Comma separated: a user message that is exactly one of these (any case, spaces around ignored) marks the user opted out of broadcasts (docs/outbound.md). Left empty it is the default; to turn it off, set a word no one sends.',
  },
  OPT_IN_WORDS: {
    kind: 'string',
    default: 'start,/start',
    doc: "Comma separated: a user message that is exactly one of these clears the user's opt-out of broadcasts (Telegram sends /start when a user starts the bot again). Left empty it is the default.",
  },
  EDGE_HEADERS_TIMEOUT_MS: {
    kind: 'integer',
    default: 10000,
    min: 100,
    max: 600000,
    doc: 'Longest a client may take to send the request line and headers before the edge closes the connection (milliseconds; node server.headersTimeout).',
  },
  EDGE_BODY_TIMEOUT_MS: {
    kind: 'integer',
    default: 10000,
    min: 100,
    max: 600000,
    doc: 'Longest the edge waits for a whole JSON body once its headers arrived; a slower body is answered 408 BW_ERR_BODY_TIMEOUT and the connection is closed (milliseconds).',
  },
  EDGE_REQUEST_TIMEOUT_MS: {
    kind: 'integer',
    default: 300000,
    min: 1000,
    max: 3600000,
    doc: 'Longest any request, document uploads included, may take to arrive whole before node closes it (milliseconds; node server.requestTimeout). Keep it above EDGE_BODY_TIMEOUT_MS and the time a MAX_DOCUMENT_BYTES upload needs.',
  },
  EDGE_KEEP_ALIVE_TIMEOUT_MS: {
    kind: 'integer',
    default: 65000,
    min: 1000,
    max: 600000,
    doc: 'How long an idle keep-alive connection stays open (milliseconds); longer than common load balancer idle timeouts.',
  },
  EDGE_MAX_CONNECTIONS: {
    kind: 'integer',
    default: 4000,
    min: 1,
    doc: 'Most open connections the edge keeps; one more is closed at once, before anything is read (count). Keep it well under the open-file limit (ulimit -n) minus the Redis and Postgres connections.',
  },
  EDGE_MAX_CONNECTIONS_PER_ADDRESS: {
    kind: 'integer',
    default: 256,
    min: 0,
    doc: 'Most open connections from one remote address; one more is closed at once, before anything is read (count; 0 turns it off, e.g. behind a reverse proxy whose address every request shares).',
  },
  ADMIN_AUTH_MAX_FAILURES: {
    kind: 'integer',
    default: 10,
    min: 1,
    doc: 'Failed admin authentications (a missing or wrong bearer key or token, a wrong password, an unknown invite link) one address may make in ADMIN_AUTH_WINDOW_S; past that every admin request from it gets 429 BW_ERR_AUTH_RATE_LIMITED with Retry-After until the window ends (count; shared by every api process through Redis).',
  },
  ADMIN_AUTH_WINDOW_S: {
    kind: 'integer',
    default: 300,
    min: 1,
    max: 86400,
    doc: 'The window in which ADMIN_AUTH_MAX_FAILURES counts, starting at the first failure (seconds).',
  },
  ACCOUNT_AUTH_MAX_FAILURES: {
    kind: 'integer',
    default: 5,
    min: 1,
    doc: 'Wrong passwords for one email (existing or not) in ADMIN_AUTH_WINDOW_S; past that its sign-in gets 429 BW_ERR_AUTH_RATE_LIMITED with Retry-After until the window ends, from every address (count; kept in Redis).',
  },
  INVITE_TTL_S: {
    kind: 'integer',
    default: 604800,
    min: 60,
    max: 2592000,
    doc: 'How long an invite link can be used, from when an owner made it (seconds; default 7 days).',
  },
  CONSOLE_SESSION_TTL_S: {
    kind: 'integer',
    default: 28800,
    min: 60,
    max: 2592000,
    doc: 'Lifetime of a console sign-in (the bw_session cookie and its session in Redis), from sign-in; signing in again starts a new one (seconds; default 8 hours).',
  },
  AUDIT_RETENTION_DAYS: {
    kind: 'integer',
    default: 365,
    min: 0,
    max: 36500,
    doc: 'How long audit log rows are kept (docs/audit.md); older rows are deleted by the api about once an hour (days; 0 keeps them forever).',
  },
  ANALYTICS_RETENTION_DAYS: {
    kind: 'integer',
    default: 400,
    min: 0,
    max: 36500,
    doc: 'How long analytics rollups are kept (docs/analytics.md): days older than this are deleted by the api about once an hour (days; 0 keeps them forever).',
  },
  BROADCAST_RETENTION_DAYS: {
    kind: 'integer',
    default: 180,
    min: 0,
    max: 36500,
    doc: 'How long a broadcast that ended is kept with its recipients (docs/outbound.md); older ones are deleted by the api about once an hour, their messages staying in the transcripts (days; 0 keeps them forever).',
  },
  TESTS_RUN_TIMEOUT_MS: {
    kind: 'integer',
    default: 60000,
    min: 1000,
    max: 600000,
    doc: 'How long the api waits for a `flow` process to run a bot\'s conversation tests (docs/flows.md, "Conversation tests"); a run not finished by then is dropped and refused with BW_ERR_TESTS_UNAVAILABLE (ms).',
  },
  EDGE_UNKNOWN_ID_TTL_MS: {
    kind: 'integer',
    default: 5000,
    min: 0,
    max: 600000,
    doc: 'How long the edge remembers that a callback app id or WhatsApp phone_number_id belongs to no bot while its bot directory may be stale (milliseconds); while the directory is current, unknown ids are answered from it without Postgres at all. A bot or channel created anywhere clears its ids at once.',
  },
  EDGE_UNKNOWN_ID_CACHE_SIZE: {
    kind: 'integer',
    default: 10000,
    min: 1,
    max: 1000000,
    doc: 'Most unknown ids remembered; the oldest is forgotten first (count; about 100 bytes each).',
  },
  UPLOAD_COLLECTION_MAX_BYTES: {
    kind: 'integer',
    default: 1073741824,
    min: 1024,
    doc: 'Most bytes of documents one collection may hold in STORAGE_DIR; an upload that would pass it is refused 413 BW_ERR_UPLOAD_QUOTA while it streams, and nothing of it is kept (bytes).',
  },
  UPLOAD_COLLECTION_MAX_FILES: {
    kind: 'integer',
    default: 1000,
    min: 1,
    doc: 'Most documents one collection may hold (count); past it, 413 BW_ERR_UPLOAD_QUOTA.',
  },
  UPLOAD_TOTAL_MAX_BYTES: {
    kind: 'integer',
    default: 10737418240,
    min: 1024,
    doc: 'Most bytes of documents all collections together may hold in STORAGE_DIR (bytes); past it, 413 BW_ERR_UPLOAD_QUOTA.',
  },
  UPLOAD_TOTAL_MAX_FILES: {
    kind: 'integer',
    default: 20000,
    min: 1,
    doc: 'Most documents all collections together may hold (count); past it, 413 BW_ERR_UPLOAD_QUOTA.',
  },
  TELEGRAM_API_URL: {
    kind: 'url',
    default: 'https://api.telegram.org',
    pattern: '^https?://[^\\s]+[^/]$',
    doc: 'Base URL of the Telegram Bot API (no trailing slash); point it at a local emulator in tests.',
  },
  WHATSAPP_API_URL: {
    kind: 'url',
    default: 'https://graph.facebook.com/v21.0',
    pattern: '^https?://[^\\s]+[^/]$',
    doc: 'Base URL of the WhatsApp Cloud API (Graph API), version included (no trailing slash): sends, media and template syncs.',
  },
  FLOW_EFFECT_TIMEOUT_MS: {
    kind: 'integer',
    default: 15000,
    min: 100,
    max: 300000,
    doc: 'How long a flow waits for a knowledge answer before it goes on without one (milliseconds).',
  },
  FLOW_HTTP_ALLOW: {
    kind: 'string',
    default: '',
    pattern: '^[0-9A-Za-z.:/,\\[\\] _-]*$',
    doc: "Addresses a flow's HTTP steps may reach although they are not public (loopback, private, link-local, metadata, this machine's own...): a comma-separated list of IP addresses, CIDR ranges (10.1.0.0/16, fd12::/64) and host names (crm.internal), each address or host name alone (every port) or with one port (crm.internal:8443, 10.0.0.7:8080, [fd12::7]:8080). Empty refuses every non-public address. See docs/security.md.",
  },
  FLOW_HTTP_MAX_STEPS: {
    kind: 'integer',
    default: 10,
    min: 0,
    max: 100,
    doc: 'HTTP steps one turn of a flow may make; a step beyond it is not made and its variable gets {error, code: BW_ERR_FLOW_BUDGET} (count).',
  },
  FLOW_HTTP_TURN_BUDGET_MS: {
    kind: 'integer',
    default: 30000,
    min: 100,
    max: 300000,
    doc: "Total time one turn's HTTP steps may take together; each step's timeout is cut to what is left, and a step with nothing left is not made (milliseconds).",
  },
  FLOW_HTTP_MAX_BODY_BYTES: {
    kind: 'integer',
    default: 262144,
    min: 1024,
    max: 16777216,
    doc: "Largest answer a flow's HTTP step reads, and largest request body it sends; reading stops as soon as more arrives, a larger body is not sent, and the step fails with BW_ERR_FLOW_BUDGET (bytes).",
  },
  FLOW_STATE_MAX_BYTES: {
    kind: 'integer',
    default: 1048576,
    min: 4096,
    max: 67108864,
    doc: "Largest conversation state (its JSON) a turn may store; a turn over it is refused with BW_ERR_FLOW_STATE_TOO_LARGE: the user gets the flow's apology and the conversation ends (bytes).",
  },
  FLOW_STATE_CACHE_BYTES: {
    kind: 'integer',
    default: 67108864,
    min: 0,
    doc: 'Memory flow may spend caching the conversation states it wrote last, counted as their JSON size; the least recently used go first (bytes; 0 turns the cache off).',
  },
  HANDOFF_TIMEOUT_S: {
    kind: 'integer',
    default: 900,
    min: 10,
    max: 604800,
    doc: 'How long a handoff waits for an agent to claim it before its fallback state runs, for bots whose handoff settings give no timeout_s (seconds). See docs/handoff.md.',
  },
  HANDOFF_SWEEP_MS: {
    kind: 'integer',
    default: 5000,
    min: 100,
    max: 600000,
    doc: 'How often flow looks for waiting handoffs past their deadline and publishes their timeout (milliseconds).',
  },
  FLOW_MATCH_EMBEDDINGS: {
    kind: 'string',
    default: 'local',
    enum: ['local', 'api', 'none'],
    doc: "The embedding model flows match free text with (options of a choice, intents): local (the embedded English model, offline), api (EMBEDDINGS_API_URL, the model's languages) or none (exact titles only). See docs/flows.md, Understanding free text.",
  },
  FLOW_MATCH_MIN_SCORE: {
    kind: 'string',
    default: '0.5',
    pattern: '^(0(\\.\\d+)?|1(\\.0+)?)$',
    doc: "Least score (0 to 1: similarity in meaning to an option's or intent's phrases, plus up to 0.4 for words in common) free text needs to match it, for flows that set no matching.min_score. The default suits the embedded model (bench/understanding).",
  },
  FLOW_MATCH_MARGIN: {
    kind: 'string',
    default: '0.14',
    pattern: '^(0(\\.\\d+)?|1(\\.0+)?)$',
    doc: 'How far (0 to 1) the score of the best option or intent must be ahead of the second best to match; closer answers are asked again. For flows that set no matching.margin.',
  },
  FLOW_LLM_DAILY_TOKENS: {
    kind: 'integer',
    default: 200000,
    min: 0,
    max: 1000000000,
    doc: "Tokens one bot's llm steps may use per day (UTC), prompt and answer together; a flow may set a lower llm.daily_tokens. A step that would pass it is not made and gets {error, code: BW_ERR_FLOW_LLM_DAILY_BUDGET} (tokens; 0 turns llm steps off).",
  },
  FLOW_LLM_TURN_TOKENS: {
    kind: 'integer',
    default: 4000,
    min: 1,
    max: 1000000,
    doc: 'Tokens the llm steps of one turn may use together, for flows that set no llm.turn_tokens; a step that would pass it is not made and gets {error, code: BW_ERR_FLOW_LLM_TURN_BUDGET} (tokens).',
  },
  TRANSLATE_API_URL: {
    kind: 'url',
    default: '',
    pattern: '^(https?://\\S+[^/])?$',
    doc: 'LibreTranslate-compatible translation API (POST /translate), no trailing slash; empty means no translation: text passes through unchanged, recorded as such.',
  },
  TRANSLATE_API_KEY: {
    kind: 'secret',
    default: '',
    doc: 'API key for the translation provider, if it needs one. Secret.',
  },
  SPEECH_API_URL: {
    kind: 'url',
    default: '',
    pattern: '^(https?://\\S+[^/])?$',
    doc: 'OpenAI-compatible audio API base URL (POST /audio/transcriptions, /audio/speech), no trailing slash; empty means voice messages get a reply that voice is not supported. When set, language reads channel credentials to download voice messages, so it needs DATABASE_URL and CREDENTIALS_KEY.',
  },
  SPEECH_API_KEY: {
    kind: 'secret',
    default: '',
    doc: 'Bearer key for the audio API. Secret.',
  },
  SPEECH_STT_MODEL: {
    kind: 'string',
    default: 'whisper-1',
    doc: 'Speech-to-text model name sent to the audio API.',
  },
  SPEECH_TTS_MODEL: {
    kind: 'string',
    default: 'tts-1',
    doc: 'Text-to-speech model name sent to the audio API.',
  },
  SPEECH_TTS_VOICE: {
    kind: 'string',
    default: 'alloy',
    doc: 'Text-to-speech voice name.',
  },
  STORAGE_DIR: {
    kind: 'string',
    default: './storage',
    doc: 'Folder where uploaded documents are kept, one subfolder per collection; api writes it, indexer reads it (share it between machines, e.g. NFS, when they run apart). Relative paths are from the working directory.',
  },
  MAX_DOCUMENT_BYTES: {
    kind: 'integer',
    default: 52428800,
    min: 1024,
    max: 1073741824,
    doc: 'Largest document accepted for upload and indexing (bytes); larger uploads get 413, larger files fail in the job.',
  },
  SPREADSHEET_MEMORY_MB: {
    kind: 'integer',
    default: 512,
    min: 16,
    max: 16384,
    doc: 'V8 heap cap of the worker thread that reads one spreadsheet (MiB); a file needing more fails as too large. See docs/knowledge.md.',
  },
  SPREADSHEET_TIMEOUT_MS: {
    kind: 'integer',
    default: 30000,
    min: 500,
    doc: 'Wall-clock limit for reading one spreadsheet, worker start included (milliseconds); a slower file fails as too large.',
  },
  PDF_TIMEOUT_MS: {
    kind: 'integer',
    default: 120000,
    min: 500,
    doc: 'Wall-clock limit for reading and chunking one PDF in its worker thread, thread start included (milliseconds); the thread is terminated then and the file fails alone as too large. See docs/knowledge.md.',
  },
  PDF_MEMORY_MB: {
    kind: 'integer',
    default: 1024,
    min: 32,
    max: 16384,
    doc: 'V8 heap cap of the worker thread that reads and chunks one PDF (MiB); a file needing more fails alone as too large.',
  },
  INDEXER_SLICE_MS: {
    kind: 'integer',
    default: 60000,
    min: 0,
    doc: 'After a job has run this long, it goes to the end of the queue between two files whenever other indexing jobs wait, and resumes later after the files done, so one collection cannot hold the indexer (milliseconds; 0 yields after every file while others wait). See docs/knowledge.md.',
  },
  INDEXER_CONCURRENCY: {
    kind: 'integer',
    default: 1,
    min: 1,
    max: 16,
    doc: 'Indexing jobs one indexer process runs at once.',
  },
  INDEXER_READ_LANES: {
    kind: 'integer',
    default: 2,
    min: 1,
    max: 8,
    doc: 'Files one indexing job reads at once; each PDF read at once takes a pdf.js thread (about 400 MiB resident; up to two idle ones are kept for the next job) and shares the cores, and so its time limit, with the others; spreadsheets are read one at a time whatever this says. 1 reads one file at a time. See docs/knowledge.md.',
  },
  INDEXER_STATEMENT_TIMEOUT_MS: {
    kind: 'integer',
    default: 600000,
    min: 0,
    doc: "Longest one of the indexer's Postgres statements may run (milliseconds; 0 leaves it to the server or role statement_timeout): storing a batch of chunks, carrying a failed file's chunks into a new generation, deleting an old generation, analysing a collection. Larger than DATABASE_STATEMENT_TIMEOUT_MS because these grow with the collection.",
  },
  INDEXER_LOCK_MS: {
    kind: 'integer',
    default: 30000,
    min: 1000,
    doc: 'How long a job stays locked to an indexer that stopped renewing it (died) before another takes it over (milliseconds).',
  },
  INDEXER_ATTEMPTS: {
    kind: 'integer',
    default: 3,
    min: 1,
    max: 20,
    doc: 'Tries of one indexing job (after a crash or an infrastructure failure; a bad file fails alone and is not retried).',
  },
  LLM_API_URL: {
    kind: 'url',
    default: '',
    pattern: '^(https?://\\S+[^/])?$',
    doc: 'OpenAI-compatible chat completions API base URL (POST /chat/completions), no trailing slash; when set, knowledge answers are written by the model from the passages found; empty means the best passages are sent, cited by source.',
  },
  LLM_API_KEY: {
    kind: 'secret',
    default: '',
    doc: 'Bearer key for the LLM API. Secret.',
  },
  LLM_MODEL: {
    kind: 'string',
    default: 'gpt-4o-mini',
    doc: 'Model name sent to the LLM API.',
  },
  LLM_TIMEOUT_MS: {
    kind: 'integer',
    default: 10000,
    min: 100,
    max: 120000,
    doc: 'How long the retriever waits for the LLM before it answers with the passages instead (milliseconds).',
  },
  EMBEDDINGS_PROVIDER: {
    kind: 'string',
    default: 'local',
    enum: ['local', 'api', 'none'],
    doc: 'How a collection that names no embedding model is searched by meaning: local (the embedded English model, offline, on CPU), api (EMBEDDINGS_API_URL) or none (words only). A collection may choose its own (PATCH /v2/collections/<name> embedding_model). See docs/knowledge.md.',
  },
  EMBEDDINGS_API_URL: {
    kind: 'url',
    default: '',
    pattern: '^(https?://\\S+[^/])?$',
    doc: 'OpenAI-compatible embeddings API base URL (POST /embeddings: OpenAI, Azure OpenAI, Ollama, vLLM, text-embeddings-inference), no trailing slash; empty: collections cannot choose api.',
  },
  EMBEDDINGS_API_KEY: {
    kind: 'secret',
    default: '',
    doc: 'Bearer key for the embeddings API. Secret.',
  },
  EMBEDDINGS_MODEL: {
    kind: 'string',
    default: 'text-embedding-3-small',
    doc: 'Model name sent to the embeddings API; recorded with the vectors, so changing it re-embeds a collection at its next index.',
  },
  EMBEDDINGS_DIMENSIONS: {
    kind: 'integer',
    default: 0,
    min: 0,
    max: 8192,
    doc: 'Dimensions asked of the embeddings API (its `dimensions` field) and required of its answers; 0 sends none and takes what the model gives (count).',
  },
  EMBEDDINGS_TIMEOUT_MS: {
    kind: 'integer',
    default: 10000,
    min: 100,
    max: 120000,
    doc: 'How long one call to the embeddings API may take before it is tried again (milliseconds; 3 tries more with backoff, a 429 waits its Retry-After).',
  },
  EMBEDDINGS_BATCH: {
    kind: 'integer',
    default: 64,
    min: 1,
    max: 2048,
    doc: 'Texts sent in one call to the embeddings API (count).',
  },
  VECTOR_CACHE_MB: {
    kind: 'integer',
    default: 256,
    min: 1,
    max: 65536,
    doc: 'Memory the vector indexes of searched collections may hold in one api or retriver process where they are kept in memory (VECTOR_INDEX; MiB; about 58 MiB per 100,000 chunks of the embedded model; least recently searched dropped first). See docs/knowledge.md.',
  },
  VECTOR_INDEX: {
    kind: 'string',
    default: 'auto',
    enum: ['auto', 'memory'],
    doc: 'Where api and retriver find the chunks nearest to a question. auto: in Postgres with the pgvector extension (HNSW) where the database has it, else in memory (VECTOR_CACHE_MB). memory: in memory even where pgvector is. See docs/knowledge.md.',
  },
  KNOWLEDGE_MIN_SIMILARITY: {
    kind: 'string',
    default: '0.3',
    pattern: '^(0(\\.\\d+)?|1(\\.0+)?)$',
    doc: 'Relevance threshold of knowledge answers for collections that set none: a question whose best passage is less similar by meaning than this (cosine, 0 to 1), and holds not every word of the question, gets no answer and is listed as a knowledge gap. See docs/knowledge.md.',
  },
  LANGUAGE_HOP: {
    kind: 'string',
    default: 'always',
    enum: ['always', 'when_needed'],
    doc: 'always: every text goes through the language component. when_needed: while TRANSLATE_API_URL and SPEECH_API_URL are both empty, channel detects the language itself and passes text straight to flow, and flow sends replies straight to channel (two hops fewer per turn, same messages); every component must then read the same provider settings.',
  },
  SHUTDOWN_TIMEOUT_MS: {
    kind: 'integer',
    default: 15000,
    min: 0,
    doc: 'On SIGTERM, how long in-flight work may take to finish before the process exits anyway (milliseconds).',
  },
  API_DRAIN_DELAY_MS: {
    kind: 'integer',
    default: 0,
    min: 0,
    max: 600000,
    doc: 'On SIGTERM, how long api keeps serving with GET /readyz answering 503 before it stops taking requests, so a load balancer stops sending callbacks first; SHUTDOWN_TIMEOUT_MS starts after it. Set it above the readiness probe period times its failure threshold (milliseconds; 0 stops at once). See docs/deployment.md.',
  },
  HEALTH_FILE: {
    kind: 'string',
    default: '',
    pattern: '^(/.*)?$',
    doc: 'Absolute path of the file a process keeps fresh while it is alive, with whether Redis (and, for api, Postgres) answers; `node scripts/healthcheck.mjs` reads it (container health check, Kubernetes probes). Empty writes none. See docs/deployment.md.',
  },
  HEALTH_INTERVAL_MS: {
    kind: 'integer',
    default: 5000,
    min: 100,
    max: 60000,
    doc: 'How often HEALTH_FILE is rewritten (milliseconds); the health check calls it stale after three times this.',
  },
  EVENTS_MAX_LEN: {
    kind: 'integer',
    default: 10000,
    min: 100,
    max: 10000000,
    doc: 'Approximate number of live events (GET /v2/events) kept in their Redis stream; a console resuming from an older event is told to reload (entries).',
  },
  EVENTS_MAX_CLIENTS: {
    kind: 'integer',
    default: 100,
    min: 1,
    max: 100000,
    doc: 'Most GET /v2/events streams one api process serves at once; one more is refused with 503 BW_ERR_EVENTS_BUSY (count).',
  },
} as const satisfies Record<string, Setting>;

export type SettingKey = keyof typeof SETTINGS;

/** Settings a component needs only when another one is set. */
const REQUIRED_WHEN: readonly {
  key: SettingKey;
  component: string;
  when: SettingKey;
  why: string;
}[] = [
  {
    key: 'CREDENTIALS_KEY',
    component: 'language',
    when: 'SPEECH_API_URL',
    why: 'voice messages are downloaded with the channel credentials',
  },
];

/** Typed, validated settings handed down from `main.ts`. */
export interface Config {
  logLevel: string;
  redisUrl: string;
  /** REDIS_TLS_CA: the CA file trusted for Redis TLS; empty for the system's. */
  redisTlsCa: string;
  databaseUrl: string;
  databasePoolMax: number;
  /** Server-side limits and the connect timeout of every Postgres connection (milliseconds; a limit of 0 is left to the server or role). */
  databaseTimeouts: { statementMs: number; idleInTransactionMs: number; connectMs: number };
  stream: {
    prefix: string;
    maxLen: number;
    partitions: number;
  };
  consumer: {
    name: string;
    batchSize: number;
    concurrency: number;
    /** Handlers of one bot at once; 0 for half of `concurrency`. */
    botConcurrency: number;
    blockMs: number;
    lingerMs: number;
    leaseMs: number;
    /** Replicas that must acknowledge a partition lease (`CONSUMER_LEASE_REPLICAS`). */
    leaseReplicas: number;
    retryBaseMs: number;
    maxDeliveries: number;
  };
  shutdownTimeoutMs: number;
  /** The health file (docs/deployment.md): its path ('' for none) and rewrite period (ms). */
  health: { file: string; intervalMs: number };
  api: {
    /** On SIGTERM, how long /readyz answers 503 before the server stops taking requests (ms). */
    drainDelayMs: number;
    host: string;
    port: number;
    publicBaseUrl: string;
    adminApiKey: string;
    bodyLimitBytes: number;
    dedupeTtlS: number;
    /** Pipeline backlog (messages) over which callbacks are refused; 0 for never. */
    maxBacklog: number;
    /** One bot's waiting turns over which its callbacks are refused; 0 for never. */
    maxBotBacklog: number;
    /** Replicas an accepted callback must reach before the edge answers (EDGE_WAIT_*). */
    replicaWait: { replicas: number; timeoutMs: number };
    /** Longest a callback's publish may take, beside the replica wait (ms). */
    publishWaitMs: number;
    /** Longest the per-bot backlog read may take before the callback is taken uncounted (ms). */
    botBacklogWaitMs: number;
    /** How long an unfinished turn counts in its bot's backlog (s). */
    botTurnHorizonS: number;
    /** Header, JSON body, whole-request and keep-alive timeouts (milliseconds). */
    timeouts: { headersMs: number; bodyMs: number; requestMs: number; keepAliveMs: number };
    /** Open connections in total and per remote address (0: no per-address cap). */
    maxConnections: number;
    maxConnectionsPerAddress: number;
    /** Admin auth failures allowed per address within `authFailureWindowS` seconds. */
    authMaxFailures: number;
    authFailureWindowS: number;
    /** Wrong passwords allowed per email within `authFailureWindowS` seconds. */
    accountMaxFailures: number;
    /** Lifetime of a console session (CONSOLE_SESSION_TTL_S, seconds). */
    consoleSessionTtlS: number;
    /** Audit rows older than this are deleted (AUDIT_RETENTION_DAYS, days; 0 = never). */
    auditRetentionDays: number;
    /** Analytics days older than this are deleted (ANALYTICS_RETENTION_DAYS; 0 = never). */
    analyticsRetentionDays: number;
    /** Broadcasts ended longer ago are deleted (BROADCAST_RETENTION_DAYS; 0 = never). */
    broadcastRetentionDays: number;
    /** How long a run of conversation tests may take (TESTS_RUN_TIMEOUT_MS, ms). */
    testsRunTimeoutMs: number;
    /** Lifetime of an invite link (INVITE_TTL_S, seconds). */
    inviteTtlS: number;
    /** Negative cache of unknown callback ids: lifetime (ms) and size (entries). */
    unknownIdTtlMs: number;
    unknownIdCacheSize: number;
    /** Upload quotas per collection and for STORAGE_DIR as a whole. */
    uploadQuota: UploadQuota;
  };
  /** channel's platform calls and circuit breaker (src/channel/breaker.ts). */
  channel: {
    /** A WhatsApp number's messages a second. */
    whatsappPerSecond: number;
    /** A broadcast's platform calls under way at once per process. */
    broadcastInFlight: number;
    /** How long a process holds a broadcast without renewing it (ms). */
    broadcastLockMs: number;
    /** Messages that opt a user out of broadcasts and back in, lower case. */
    optWords: { out: string[]; in: string[] };
    sendTimeoutMs: number;
    suspectSendTimeoutMs: number;
    breakerFailures: number;
    breakerWindowMs: number;
    breakerOpenMs: number;
    breakerOpenMaxMs: number;
  };
  /** The web channel (docs/web-channel.md). */
  web: {
    /** Visitor token lifetime (s). */
    tokenTtlS: number;
    /** Open event streams per api process (count). */
    maxEventStreams: number;
    /** Open event streams of one visitor per api process (count). */
    maxStreamsPerVisitor: number;
    /** Entries kept per visitor stream, approximately (count). */
    streamMaxLen: number;
    /** Expiry of a visitor stream after its last entry (s). */
    streamTtlS: number;
  };
  /** AES-256-GCM key (32 bytes), or undefined where the component does not need it. */
  credentialsKey: Buffer | undefined;
  /** Keys of `CREDENTIALS_KEY_PREVIOUS` (32 bytes each): they open stored credentials, never seal. */
  previousCredentialsKeys: Buffer[];
  providers: {
    telegramApiUrl: string;
    whatsappApiUrl: string;
    /** Empty when no translation provider is configured. */
    translateApiUrl: string;
    translateApiKey: string;
    /** Empty when no speech provider is configured. */
    speechApiUrl: string;
    speechApiKey: string;
    speechSttModel: string;
    speechTtsModel: string;
    speechTtsVoice: string;
  };
  flow: {
    effectTimeoutMs: number;
    /** `FLOW_HTTP_ALLOW` split at commas, empty entries dropped. */
    httpAllow: string[];
    httpMaxSteps: number;
    httpTurnBudgetMs: number;
    httpMaxBodyBytes: number;
    stateMaxBytes: number;
    stateCacheBytes: number;
    /** `HANDOFF_TIMEOUT_S` (seconds). */
    handoffTimeoutS: number;
    /** `HANDOFF_SWEEP_MS` (milliseconds). */
    handoffSweepMs: number;
    /** `FLOW_MATCH_EMBEDDINGS`: the model free text is matched with. */
    matchEmbeddings: 'local' | 'api' | 'none';
    /** `FLOW_MATCH_MIN_SCORE`, `FLOW_MATCH_MARGIN` (cosine). */
    matching: { minScore: number; margin: number };
    /** `FLOW_LLM_DAILY_TOKENS`, `FLOW_LLM_TURN_TOKENS` (tokens). */
    llmDailyTokens: number;
    llmTurnTokens: number;
  };
  knowledge: {
    storageDir: string;
    maxDocumentBytes: number;
    spreadsheetMemoryMb: number;
    spreadsheetTimeoutMs: number;
    pdfTimeoutMs: number;
    pdfMemoryMb: number;
    indexerSliceMs: number;
    indexerConcurrency: number;
    indexerLockMs: number;
    indexerReadLanes: number;
    /** The indexer's statement timeout, in place of `databaseTimeouts.statementMs`. */
    indexerStatementTimeoutMs: number;
    indexerAttempts: number;
    /** Empty when no LLM is configured. */
    llmApiUrl: string;
    llmApiKey: string;
    llmModel: string;
    llmTimeoutMs: number;
    /** `KNOWLEDGE_MIN_SIMILARITY`: the default relevance threshold (cosine, 0..1). */
    minSimilarity: number;
    /** Memory budget of the vector indexes one process holds (bytes). */
    vectorCacheBytes: number;
    /** `VECTOR_INDEX`: `auto` searches with pgvector where the database has it; `memory` never. */
    vectorIndex: 'auto' | 'memory';
  };
  embeddings: EmbeddingSettings;
  /**
   * True when `LANGUAGE_HOP=when_needed` and no translation or speech provider is configured:
   * channel and flow then do language's pass-through work themselves.
   */
  skipLanguage: boolean;
  /** The live events stream (docs/events.md). */
  events: {
    /** Approximate entries kept (`EVENTS_MAX_LEN`). */
    maxLen: number;
    /** `GET /v2/events` streams per api process (`EVENTS_MAX_CLIENTS`). */
    maxClients: number;
  };
}

/** Limits on what the uploaded documents may hold on disk (bytes and files). */
export interface UploadQuota {
  collectionBytes: number;
  collectionFiles: number;
  totalBytes: number;
  totalFiles: number;
}

/** Thrown when a setting is missing or malformed; its message names the key. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

function schemaOf(setting: Setting): Record<string, unknown> {
  const base: Record<string, unknown> =
    setting.kind === 'integer'
      ? { type: 'integer', minimum: setting.min, maximum: setting.max }
      : { type: 'string' };
  if ('pattern' in setting && setting.pattern) base.pattern = setting.pattern;
  if ('enum' in setting && setting.enum) base.enum = setting.enum;
  return base;
}

const validate = new Ajv({ allErrors: true, coerceTypes: true }).compile({
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(SETTINGS as Record<string, Setting>).map(([key, s]) => [key, schemaOf(s)]),
  ),
});

/**
 * Validates the environment and returns typed settings.
 * @param component the component starting; settings it requires must be set. Without one (tools,
 *   tests), only the values that are set are checked.
 * @throws ConfigError naming every bad or missing key.
 */
/** A comma separated list of words, lower case, none empty. */
function wordsOf(raw: unknown): string[] {
  return (raw as string)
    .split(',')
    .map((word) => word.trim().toLowerCase())
    .filter((word) => word !== '');
}

export function loadConfig(
  env: Readonly<Record<string, string | undefined>>,
  component?: string,
): Config {
  const raw: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const [key, setting] of Object.entries(SETTINGS as Record<string, Setting>)) {
    const value = env[key]?.trim();
    if (value) raw[key] = value;
    else if (setting.default !== undefined) raw[key] = setting.default;
    else if (component && setting.requiredBy?.includes(component)) missing.push(key);
  }
  const problems = missing.map((key) => `${key} is required by ${component}`);
  for (const rule of REQUIRED_WHEN) {
    if (component === rule.component && raw[rule.when] && !raw[rule.key])
      problems.push(
        `${rule.key} is required by ${component} when ${rule.when} is set (${rule.why})`,
      );
  }
  if (!validate(raw)) {
    for (const e of validate.errors ?? []) {
      const key = e.instancePath.slice(1) || '?';
      const kind = (SETTINGS as Record<string, Setting>)[key]?.kind;
      // A URL is shown with its password masked; a secret not at all.
      const shown = kind === 'url' ? maskUrl(String(raw[key])) : raw[key];
      const got = kind === 'secret' ? '' : ` (got ${JSON.stringify(shown)})`;
      problems.push(`${key} ${e.message ?? 'is invalid'}${got}`);
    }
  }
  if (typeof raw.REDIS_URL === 'string' && isClusterUrl(raw.REDIS_URL)) {
    try {
      parseRedisUrl(raw.REDIS_URL);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (typeof raw.REDIS_TLS_CA === 'string' && raw.REDIS_TLS_CA !== '') {
    // Read now, so a wrong path stops the start with the setting's name, not a TLS error later.
    try {
      readFileSync(raw.REDIS_TLS_CA);
    } catch (error) {
      problems.push(
        `REDIS_TLS_CA cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}: ${raw.REDIS_TLS_CA})`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
  const v = raw as Record<SettingKey, string> & Record<SettingKey, number>;
  const key = raw.CREDENTIALS_KEY as string | undefined;
  return {
    logLevel: v.LOG_LEVEL,
    redisUrl: v.REDIS_URL,
    redisTlsCa: v.REDIS_TLS_CA,
    databaseUrl: v.DATABASE_URL,
    databasePoolMax: v.DATABASE_POOL_MAX,
    databaseTimeouts: {
      statementMs: v.DATABASE_STATEMENT_TIMEOUT_MS,
      idleInTransactionMs: v.DATABASE_IDLE_TRANSACTION_TIMEOUT_MS,
      connectMs: v.DATABASE_CONNECT_TIMEOUT_MS,
    },
    stream: { prefix: v.STREAM_PREFIX, maxLen: v.STREAM_MAXLEN, partitions: v.TOPIC_PARTITIONS },
    consumer: {
      name: v.CONSUMER_NAME || `${hostname()}-${process.pid}`,
      batchSize: v.CONSUMER_BATCH_SIZE,
      concurrency: v.CONSUMER_CONCURRENCY,
      botConcurrency: v.CONSUMER_BOT_CONCURRENCY,
      blockMs: v.CONSUMER_BLOCK_MS,
      lingerMs: v.CONSUMER_LINGER_MS,
      leaseMs: v.CONSUMER_LEASE_MS,
      leaseReplicas: v.CONSUMER_LEASE_REPLICAS,
      retryBaseMs: v.CONSUMER_RETRY_BASE_MS,
      maxDeliveries: v.CONSUMER_MAX_DELIVERIES,
    },
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    health: { file: v.HEALTH_FILE, intervalMs: v.HEALTH_INTERVAL_MS },
    api: {
      drainDelayMs: v.API_DRAIN_DELAY_MS,
      host: v.API_HOST,
      port: v.API_PORT,
      publicBaseUrl: v.PUBLIC_BASE_URL,
      adminApiKey: (raw.ADMIN_API_KEY as string | undefined) ?? '',
      bodyLimitBytes: v.HTTP_BODY_LIMIT_BYTES,
      dedupeTtlS: v.DEDUPE_TTL_S,
      maxBacklog: v.EDGE_MAX_BACKLOG,
      maxBotBacklog: v.EDGE_MAX_BOT_BACKLOG,
      replicaWait: { replicas: v.EDGE_WAIT_REPLICAS, timeoutMs: v.EDGE_WAIT_TIMEOUT_MS },
      botTurnHorizonS: v.EDGE_BOT_TURN_HORIZON_S,
      publishWaitMs: v.EDGE_PUBLISH_WAIT_MS,
      botBacklogWaitMs: v.EDGE_BOT_BACKLOG_WAIT_MS,
      timeouts: {
        headersMs: v.EDGE_HEADERS_TIMEOUT_MS,
        bodyMs: v.EDGE_BODY_TIMEOUT_MS,
        requestMs: v.EDGE_REQUEST_TIMEOUT_MS,
        keepAliveMs: v.EDGE_KEEP_ALIVE_TIMEOUT_MS,
      },
      maxConnections: v.EDGE_MAX_CONNECTIONS,
      maxConnectionsPerAddress: v.EDGE_MAX_CONNECTIONS_PER_ADDRESS,
      authMaxFailures: v.ADMIN_AUTH_MAX_FAILURES,
      authFailureWindowS: v.ADMIN_AUTH_WINDOW_S,
      accountMaxFailures: v.ACCOUNT_AUTH_MAX_FAILURES,
      consoleSessionTtlS: v.CONSOLE_SESSION_TTL_S,
      auditRetentionDays: v.AUDIT_RETENTION_DAYS,
      analyticsRetentionDays: v.ANALYTICS_RETENTION_DAYS,
      broadcastRetentionDays: v.BROADCAST_RETENTION_DAYS,
      testsRunTimeoutMs: v.TESTS_RUN_TIMEOUT_MS,
      inviteTtlS: v.INVITE_TTL_S,
      unknownIdTtlMs: v.EDGE_UNKNOWN_ID_TTL_MS,
      unknownIdCacheSize: v.EDGE_UNKNOWN_ID_CACHE_SIZE,
      uploadQuota: {
        collectionBytes: v.UPLOAD_COLLECTION_MAX_BYTES,
        collectionFiles: v.UPLOAD_COLLECTION_MAX_FILES,
        totalBytes: v.UPLOAD_TOTAL_MAX_BYTES,
        totalFiles: v.UPLOAD_TOTAL_MAX_FILES,
      },
    },
    channel: {
      whatsappPerSecond: v.WHATSAPP_MESSAGES_PER_SECOND,
      broadcastInFlight: v.BROADCAST_SENDS_IN_FLIGHT,
      broadcastLockMs: v.BROADCAST_LOCK_MS,
      optWords: { out: wordsOf(raw.OPT_OUT_WORDS), in: wordsOf(raw.OPT_IN_WORDS) },
      sendTimeoutMs: v.CHANNEL_SEND_TIMEOUT_MS,
      suspectSendTimeoutMs: v.CHANNEL_SUSPECT_SEND_TIMEOUT_MS,
      breakerFailures: v.CHANNEL_BREAKER_FAILURES,
      breakerWindowMs: v.CHANNEL_BREAKER_WINDOW_MS,
      breakerOpenMs: v.CHANNEL_BREAKER_OPEN_MS,
      breakerOpenMaxMs: v.CHANNEL_BREAKER_OPEN_MAX_MS,
    },
    web: {
      tokenTtlS: v.WEB_TOKEN_TTL_S,
      maxEventStreams: v.WEB_MAX_EVENT_STREAMS,
      maxStreamsPerVisitor: v.WEB_MAX_STREAMS_PER_VISITOR,
      streamMaxLen: v.WEB_STREAM_MAXLEN,
      streamTtlS: v.WEB_STREAM_TTL_S,
    },
    credentialsKey: key ? Buffer.from(key, 'base64') : undefined,
    previousCredentialsKeys: (raw.CREDENTIALS_KEY_PREVIOUS as string)
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean)
      .map((k) => Buffer.from(k, 'base64')),
    providers: {
      telegramApiUrl: v.TELEGRAM_API_URL,
      whatsappApiUrl: v.WHATSAPP_API_URL,
      translateApiUrl: v.TRANSLATE_API_URL,
      translateApiKey: v.TRANSLATE_API_KEY,
      speechApiUrl: v.SPEECH_API_URL,
      speechApiKey: v.SPEECH_API_KEY,
      speechSttModel: v.SPEECH_STT_MODEL,
      speechTtsModel: v.SPEECH_TTS_MODEL,
      speechTtsVoice: v.SPEECH_TTS_VOICE,
    },
    flow: {
      effectTimeoutMs: v.FLOW_EFFECT_TIMEOUT_MS,
      httpAllow: (raw.FLOW_HTTP_ALLOW as string)
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
      httpMaxSteps: v.FLOW_HTTP_MAX_STEPS,
      httpTurnBudgetMs: v.FLOW_HTTP_TURN_BUDGET_MS,
      httpMaxBodyBytes: v.FLOW_HTTP_MAX_BODY_BYTES,
      stateMaxBytes: v.FLOW_STATE_MAX_BYTES,
      stateCacheBytes: v.FLOW_STATE_CACHE_BYTES,
      handoffTimeoutS: v.HANDOFF_TIMEOUT_S,
      handoffSweepMs: v.HANDOFF_SWEEP_MS,
      matchEmbeddings: v.FLOW_MATCH_EMBEDDINGS,
      matching: { minScore: Number(v.FLOW_MATCH_MIN_SCORE), margin: Number(v.FLOW_MATCH_MARGIN) },
      llmDailyTokens: v.FLOW_LLM_DAILY_TOKENS,
      llmTurnTokens: v.FLOW_LLM_TURN_TOKENS,
    },
    knowledge: {
      storageDir: v.STORAGE_DIR,
      maxDocumentBytes: v.MAX_DOCUMENT_BYTES,
      spreadsheetMemoryMb: v.SPREADSHEET_MEMORY_MB,
      spreadsheetTimeoutMs: v.SPREADSHEET_TIMEOUT_MS,
      pdfTimeoutMs: v.PDF_TIMEOUT_MS,
      pdfMemoryMb: v.PDF_MEMORY_MB,
      indexerSliceMs: v.INDEXER_SLICE_MS,
      indexerConcurrency: v.INDEXER_CONCURRENCY,
      indexerLockMs: v.INDEXER_LOCK_MS,
      indexerReadLanes: v.INDEXER_READ_LANES,
      indexerStatementTimeoutMs: v.INDEXER_STATEMENT_TIMEOUT_MS,
      indexerAttempts: v.INDEXER_ATTEMPTS,
      llmApiUrl: v.LLM_API_URL,
      llmApiKey: v.LLM_API_KEY,
      llmModel: v.LLM_MODEL,
      llmTimeoutMs: v.LLM_TIMEOUT_MS,
      minSimilarity: Number(v.KNOWLEDGE_MIN_SIMILARITY),
      vectorCacheBytes: v.VECTOR_CACHE_MB * 1024 * 1024,
      vectorIndex: v.VECTOR_INDEX,
    },
    embeddings: {
      defaultChoice: v.EMBEDDINGS_PROVIDER,
      apiUrl: v.EMBEDDINGS_API_URL,
      apiKey: v.EMBEDDINGS_API_KEY,
      apiModel: v.EMBEDDINGS_MODEL,
      apiDimensions: v.EMBEDDINGS_DIMENSIONS,
      apiTimeoutMs: v.EMBEDDINGS_TIMEOUT_MS,
      apiBatch: v.EMBEDDINGS_BATCH,
      localBatch: 16,
    },
    skipLanguage: v.LANGUAGE_HOP === 'when_needed' && !v.TRANSLATE_API_URL && !v.SPEECH_API_URL,
    events: { maxLen: v.EVENTS_MAX_LEN, maxClients: v.EVENTS_MAX_CLIENTS },
  };
}
