/** What the callback and admin routes are given: the process's shared dependencies. */
import type { BroadcastQueue } from '../shared/broadcasts/queue.ts';
import type { MessagingLimit } from '../shared/whatsapp-messaging-limit.ts';
import type { BotDirectory } from '../shared/bots/directory.ts';
import type { BotStore } from '../shared/bots/store.ts';
import type { Producer } from '../shared/bus/producer.ts';
import type { ReplicaWait } from '../shared/replica-wait.ts';
import type { EventPublisher } from '../shared/events/publisher.ts';
import type { EventHub } from './events/hub.ts';
import type { UploadQuota } from '../config.ts';
import type { Knex } from '../shared/db.ts';
import type { Redis } from '../shared/redis.ts';
import type { SchemaRegistry } from '../shared/schemas.ts';
import type { VisitorHub } from './web/visitor-hub.ts';
import type { BurstLog } from './burst-log.ts';
import type { Passwords } from './admin/passwords.ts';

import type { KnowledgeSearch } from '../shared/knowledge/knowledge-search.ts';
import type { ConversationTestQueue } from '../shared/flows/conversation-test-queue.ts';

export interface Edge {
  redis: Redis;
  db: Knex;
  producer: Producer;
  /** Live events (docs/events.md); best effort. */
  events: EventPublisher;
  /** Serves `GET /v2/events` (one Redis reader for all clients of the process). */
  eventHub: EventHub;
  schemas: SchemaRegistry;
  directory: BotDirectory;
  store: BotStore;
  prefix: string;
  /** Partition streams per topic (TOPIC_PARTITIONS). */
  partitions: number;
  /** Approximate length kept of each partition stream (STREAM_MAXLEN), for dead-letter replays. */
  streamMaxLen: number;
  /**
   * How long one heartbeat of a process counts (CONSUMER_LEASE_MS, ms): a member's deadline in a
   * live-member set minus this is when it was last seen.
   */
  heartbeatMs: number;
  bodyLimitBytes: number;
  /** Longest a JSON body may take to arrive once its headers did (EDGE_BODY_TIMEOUT_MS). */
  bodyTimeoutMs: number;
  /** Admin bearer-token failures allowed per address in `authFailureWindowS` seconds. */
  authMaxFailures: number;
  authFailureWindowS: number;
  /** Wrong passwords allowed per account email in `authFailureWindowS` (ACCOUNT_AUTH_MAX_FAILURES). */
  accountMaxFailures: number;
  /** Lifetime of a console session from sign-in (CONSOLE_SESSION_TTL_S, seconds). */
  consoleSessionTtlS: number;
  /** Counts an audit row that could not be written (botwire_audit_write_failures_total). */
  auditLost: () => void;
  /** Lifetime of an invite link (INVITE_TTL_S, seconds). */
  inviteTtlS: number;
  /** Hashes and checks account passwords (scrypt). */
  passwords: Passwords;
  /** Where the console's build is served from (`console/dist`). */
  consoleDir: string;
  /** Limits on the documents kept in STORAGE_DIR (UPLOAD_*_MAX_*). */
  uploadQuota: UploadQuota;
  dedupeTtlS: number;
  /** Replicas an accepted callback must reach before the 200 (EDGE_WAIT_REPLICAS; 0: none). */
  replicaWait: ReplicaWait;
  adminApiKey: string;
  publicBaseUrl: string;
  telegramApiUrl: string;
  /** WhatsApp's Graph API (WHATSAPP_API_URL): message templates are synced from it. */
  whatsappApiUrl: string;
  /** FLOW_LLM_DAILY_TOKENS: the most tokens a bot's llm steps may use a day. */
  llmDailyTokens: number;
  /** Where uploaded documents are stored (STORAGE_DIR). */
  storageDir: string;
  /** Knowledge search by meaning: the providers queries are embedded by, the vector indexes held. */
  knowledge: KnowledgeSearch;
  maxDocumentBytes: number;
  /** The HTTP client for outside calls (replaceable in tests of failure paths). */
  fetch: typeof fetch;
  /**
   * Whether the pipeline's backlog is over EDGE_MAX_BACKLOG (callbacks are refused then). Asked
   * by callbacks only: asking keeps the gauge sampling (`backlog.ts`).
   */
  overloaded: () => boolean;
  /** Whether the process is shutting down: /readyz answers 503 so no new callbacks are sent. */
  draining: () => boolean;
  /**
   * Per-bot backpressure: turns waiting for one bot over which its callbacks are refused
   * (EDGE_MAX_BOT_BACKLOG, 0 for never), how long an unfinished turn counts
   * (EDGE_BOT_TURN_HORIZON_S, in ms), and how long its count may take to read before the callback
   * is taken uncounted (EDGE_BOT_BACKLOG_WAIT_MS; on a cluster, where the check is a step of its
   * own: on one server it rides in the publish script).
   */
  botBacklog: { max: number; horizonMs: number; waitMs: number };
  /** Longest a callback's publish may take beside the replica wait (EDGE_PUBLISH_WAIT_MS). */
  publishWaitMs: number;
  /** Warnings that come a request at a time while Redis is away, logged a line per burst. */
  warnings: BurstLog;
  /** Told the seconds from a handoff's start to its first agent reply (a metric). */
  onAgentFirstReply?: (seconds: number) => void;
  /** Runs of conversation tests, by a flow process, and how long one may take (ms). */
  tests: { queue: ConversationTestQueue; timeoutMs: number };
  /** Where broadcasts are started, for a channel process to run. */
  broadcasts: BroadcastQueue;
  /** WhatsApp numbers' messaging limits: a template that starts a conversation takes room. */
  messagingLimit: MessagingLimit;
  /** The web channel: visitor token lifetime (WEB_TOKEN_TTL_S, s) and the event streams. */
  web: { tokenTtlS: number; hub: VisitorHub };
}
