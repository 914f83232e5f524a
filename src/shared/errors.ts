/**
 * The catalogue of botwire error codes. A code never changes meaning once shipped; tests assert
 * codes, not messages. `docs/errors.md` lists them for operators.
 *
 * `retryable` says whether trying the same thing again can help: a stream consumer leaves a
 * retryable failure pending (it is reclaimed and retried), and dead-letters the rest at once.
 */
export const ERRORS = {
  BW_ERR_CONFIG: { status: 500, retryable: false, doc: 'A setting is missing or malformed.' },
  BW_ERR_INTERNAL: { status: 500, retryable: true, doc: 'An unexpected failure; see the logs.' },
  BW_ERR_UNAVAILABLE: {
    status: 503,
    retryable: true,
    doc: 'Redis or Postgres cannot be reached; try again.',
  },
  BW_ERR_NO_REPLICA: {
    status: 503,
    retryable: true,
    doc: 'The edge waits for replicas (EDGE_WAIT_REPLICAS) and fewer than asked acknowledged the callback within EDGE_WAIT_TIMEOUT_MS, as while a master has no replica: it is written on the master but refused, so the platform delivers it again (once, as its id was seen). Redis itself answers; see docs/operations.md, "Replication is asynchronous".',
  },
  BW_ERR_OVERLOADED: {
    status: 503,
    retryable: true,
    doc: 'More messages wait in the pipeline than EDGE_MAX_BACKLOG: the callback is refused (with Retry-After) and nothing is published; the platform delivers it again later.',
  },
  BW_ERR_BOT_OVERLOADED: {
    status: 503,
    retryable: true,
    doc: "More of this bot's turns wait (in the pipeline or parked for its failing platform) than EDGE_MAX_BOT_BACKLOG: its callback is refused (with Retry-After) and nothing is published; other bots' callbacks are accepted.",
  },
  BW_ERR_EVENTS_BUSY: {
    status: 503,
    retryable: true,
    doc: 'This api process already serves EVENTS_MAX_CLIENTS live event streams (GET /v2/events); try again later or another api process.',
  },
  BW_ERR_LAYOUT: {
    status: 500,
    retryable: false,
    doc: 'A component refused to start: Redis still holds unread, unacknowledged or dead-lettered messages in the former stream key layout (one hash tag per topic); drain and switch it with ./scripts/migrate-stream-layout.sh (docs/operations.md, "Stream key layout").',
  },
  BW_ERR_UNKNOWN_TOPIC: { status: 400, retryable: false, doc: 'No such topic.' },
  BW_ERR_MESSAGE_MALFORMED: {
    status: 400,
    retryable: false,
    doc: 'A topic message is not a JSON object in the field `data`.',
  },
  BW_ERR_MESSAGE_INVALID: {
    status: 400,
    retryable: false,
    doc: "A topic message fails its topic's JSON Schema.",
  },
  BW_ERR_MAX_DELIVERIES: {
    status: 500,
    retryable: false,
    doc: 'A message was delivered the maximum number of times without success.',
  },
  BW_ERR_HANDLER: {
    status: 500,
    retryable: true,
    doc: 'A handler failed with an error it did not classify.',
  },
  BW_ERR_NOT_FOUND: { status: 404, retryable: false, doc: 'No such route or resource.' },
  BW_ERR_COLLECTION_FORBIDDEN: {
    status: 403,
    retryable: false,
    doc: "A bot's flow asked a knowledge collection its bot may not read (neither its owner nor shared); the flow's answer variable gets `{error}` starting with this code.",
  },
  BW_ERR_METHOD_NOT_ALLOWED: {
    status: 405,
    retryable: false,
    doc: 'The route exists but not with this method.',
  },
  BW_ERR_UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    retryable: false,
    doc: 'The body is not `application/json` (a document upload: not `multipart/form-data`).',
  },
  BW_ERR_MALFORMED_JSON: {
    status: 400,
    retryable: false,
    doc: 'The body is not valid JSON: a syntax error, bytes that are not UTF-8, or nesting deeper than 100 levels.',
  },
  BW_ERR_SCHEMA: {
    status: 400,
    retryable: false,
    doc: 'The body fails its JSON Schema; `details.problems` lists each failing path.',
  },
  BW_ERR_PAYLOAD_TOO_LARGE: {
    status: 413,
    retryable: false,
    doc: 'The body is larger than `HTTP_BODY_LIMIT_BYTES`; or a document upload holds more files, parts or fields than an upload takes.',
  },
  BW_ERR_UNAUTHORIZED: {
    status: 401,
    retryable: false,
    doc: 'The admin API bearer token is missing or wrong.',
  },
  BW_ERR_BAD_SECRET: {
    status: 401,
    retryable: false,
    doc: '`X-Telegram-Bot-Api-Secret-Token` is missing or does not match the channel secret.',
  },
  BW_ERR_BAD_SIGNATURE: {
    status: 401,
    retryable: false,
    doc: '`X-Hub-Signature-256` is missing or is not the HMAC-SHA256 of the body with the app secret.',
  },
  BW_ERR_VERIFY_TOKEN: {
    status: 403,
    retryable: false,
    doc: 'The webhook verification handshake named a wrong verify token.',
  },
  BW_ERR_UNKNOWN_BOT: { status: 404, retryable: false, doc: 'No bot has this app id or number.' },
  BW_ERR_BOT_INACTIVE: {
    status: 404,
    retryable: false,
    doc: 'The bot exists but is switched off (`active: false`).',
  },
  BW_ERR_UNKNOWN_CHANNEL: {
    status: 404,
    retryable: false,
    doc: 'The bot has no channel of this type or id.',
  },
  BW_ERR_CONFLICT: {
    status: 409,
    retryable: false,
    doc: 'The change clashes with existing data (a number already wired to another bot).',
  },
  BW_ERR_UNSUPPORTED: {
    status: 400,
    retryable: false,
    doc: 'The operation does not apply here (a Telegram webhook for a WhatsApp channel).',
  },
  BW_ERR_UPSTREAM: {
    status: 502,
    retryable: true,
    doc: 'A platform or provider refused or failed the call; `message` carries its answer.',
  },
  BW_ERR_EMBEDDINGS_INVALID: {
    status: 502,
    retryable: false,
    doc: 'The embeddings API answered vectors that cannot be used: another number than the texts sent, a dimension other than EMBEDDINGS_DIMENSIONS or than its other vectors, or values that are not numbers. Nothing of the answer is stored; the indexing job fails.',
  },
  BW_ERR_SEARCH_MODE: {
    status: 400,
    retryable: false,
    doc: 'A search by meaning (mode=semantic or hybrid) was asked of a collection that has no vectors, or whose vectors are of a model this process is not configured for (search it with mode=words, or re-index it with an embedding model); or a collection was given embedding_model "api" where EMBEDDINGS_API_URL is empty.',
  },
  BW_ERR_DOCUMENT_UNREADABLE: {
    status: 422,
    retryable: false,
    doc: 'A document cannot be read: encrypted, damaged, not the type its name says, or too large to unpack (pages, cells, memory, time); `message` says which.',
  },
  BW_ERR_DOCUMENT_TOO_LARGE: {
    status: 413,
    retryable: false,
    doc: 'A document file is larger than the size limit (default 50 MiB).',
  },
  BW_ERR_DOCUMENT_UNSUPPORTED: {
    status: 415,
    retryable: false,
    doc: 'A document is not of a type the indexer reads (`.pdf`, `.xlsx`, `.xls`, `.ods`, `.csv`).',
  },
  BW_ERR_FLOW_INVALID: {
    status: 400,
    retryable: false,
    doc: 'The flow fails its schema or a flow check (unknown state, a pattern RE2 cannot match in linear time, dead end); `details.problems` lists each JSON Pointer. 400 when a bot is created or changed with it; 422 when a draft is published or a version rolled back to (the stored flow, not the request, is at fault).',
  },
  BW_ERR_NO_DRAFT: {
    status: 409,
    retryable: false,
    doc: "A publish, or an impact check of the draft, found no draft of the bot's flow (none was saved, or another publish took it first).",
  },
  BW_ERR_TESTS_FAILED: {
    status: 409,
    retryable: false,
    doc: "A publish was refused: some of the bot's conversation tests fail on the draft (`details.run` has every result). Mend the flow or the tests, or publish with `override_tests` (owners; the audit log keeps it).",
  },
  BW_ERR_TESTS_UNAVAILABLE: {
    status: 503,
    retryable: true,
    doc: 'Conversation tests could not be run: no `flow` process finished the run in time (`TESTS_RUN_TIMEOUT_MS`). A publish that needed them is refused; an owner may override.',
  },
  BW_ERR_DRAFT_CHANGED: {
    status: 409,
    retryable: true,
    doc: 'The draft was saved anew while its conversation tests ran before a publish; publish again to test the new draft.',
  },
  BW_ERR_FLOW_LOOP: {
    status: 500,
    retryable: false,
    doc: 'A flow entered more than 50 states in one turn; the user got an apology and the conversation ended.',
  },
  BW_ERR_FLOW_STUCK: {
    status: 500,
    retryable: false,
    doc: 'A state without a wait had no transition whose condition held; the user got an apology and the conversation ended.',
  },
  BW_ERR_FLOW_HTTP_REFUSED: {
    status: 403,
    retryable: false,
    doc: "A flow's HTTP step was not made: its address (after DNS, or of a redirect) is not public and FLOW_HTTP_ALLOW does not name it, it redirected more than 5 times or to another scheme, or a value would have made a path segment `.` or `..`. The step's variable gets `{error, code}`.",
  },
  BW_ERR_FLOW_BUDGET: {
    status: 422,
    retryable: false,
    doc: "A flow's turn hit a budget: more HTTP steps than FLOW_HTTP_MAX_STEPS, their time over FLOW_HTTP_TURN_BUDGET_MS, or a request body or an answer over FLOW_HTTP_MAX_BODY_BYTES: the step is not made (or its answer not kept) and its variable gets `{error, code}`. Or the turn's templates produced more than 4 Mi characters: the user gets the flow's apology and the conversation ends (its variables cleared).",
  },
  BW_ERR_FLOW_STATE_TOO_LARGE: {
    status: 422,
    retryable: false,
    doc: "A turn would have stored a conversation state over FLOW_STATE_MAX_BYTES: the turn's changes are dropped, the user gets the flow's apology and the conversation ends (its variables cleared).",
  },
  BW_ERR_FLOW_LLM_UNAVAILABLE: {
    status: 503,
    retryable: false,
    doc: "A flow's llm step could not be answered: no LLM is configured (LLM_API_URL), or the provider failed (unreachable, a non-2xx status, no message). The step's variable gets `{error, code}`.",
  },
  BW_ERR_FLOW_LLM_TIMEOUT: {
    status: 504,
    retryable: false,
    doc: "A flow's llm step got no valid answer within its timeout_ms (the repair attempt included), or the turn's time for outside calls (FLOW_HTTP_TURN_BUDGET_MS) ran out. The step's variable gets `{error, code}`.",
  },
  BW_ERR_FLOW_LLM_INVALID_OUTPUT: {
    status: 422,
    retryable: false,
    doc: "A flow's llm step answered with output that is not JSON valid against the step's schema, twice (the first answer and one repair attempt). The step's variable gets `{error, code}`.",
  },
  BW_ERR_FLOW_LLM_DAILY_BUDGET: {
    status: 429,
    retryable: false,
    doc: "A bot's llm steps reached its daily token budget (the flow's llm.daily_tokens, at most FLOW_LLM_DAILY_TOKENS; days in UTC). The call is not made and the step's variable gets `{error, code}`.",
  },
  BW_ERR_FLOW_LLM_TURN_BUDGET: {
    status: 429,
    retryable: false,
    doc: "The llm steps of one turn would use more tokens than the turn's budget (the flow's llm.turn_tokens, else FLOW_LLM_TURN_TOKENS). The call is not made and the step's variable gets `{error, code}`.",
  },
  BW_ERR_FLOW_LLM_OFF_TOPIC: {
    status: 422,
    retryable: false,
    doc: "A flow's llm step was asked, or answered, outside the topic its bot's guardrails allow (llm.topic). The answer is not kept; the step's variable gets `{error, code}` so the flow takes its fallback.",
  },
  BW_ERR_STATE_CONFLICT: {
    status: 409,
    retryable: true,
    doc: 'A conversation state was changed by another writer while a turn ran; the turn is retried on the new state.',
  },
  BW_ERR_CREDENTIALS_KEY: {
    status: 500,
    retryable: true,
    doc: 'Stored channel credentials do not open with `CREDENTIALS_KEY` or any key of `CREDENTIALS_KEY_PREVIOUS`: at start, `details.channels` lists each channel and bot (and the key id it was sealed with); at run time the message names the channel. Remedy: set the key they were sealed with as `CREDENTIALS_KEY_PREVIOUS` (then run `./scripts/rotate-credentials-key.sh`), or re-create those channels. Retried, so a process holding the right key can take the message.',
  },
  BW_ERR_BODY_TIMEOUT: {
    status: 408,
    retryable: true,
    doc: 'The request body did not arrive whole within EDGE_BODY_TIMEOUT_MS; nothing was done and the connection is closed.',
  },
  BW_ERR_AUTH_RATE_LIMITED: {
    status: 429,
    retryable: true,
    doc: 'Too many failed admin authentications: from this address (a missing or wrong bearer token or password, invite link; ADMIN_AUTH_MAX_FAILURES in ADMIN_AUTH_WINDOW_S), then every admin request from it is refused, or for this email (ACCOUNT_AUTH_MAX_FAILURES wrong passwords in ADMIN_AUTH_WINDOW_S), then its sign-in is refused, until Retry-After passes.',
  },
  BW_ERR_FILE_NAME: {
    status: 400,
    retryable: false,
    doc: 'An uploaded file name is not a plain file name: empty, `.`/`..`, holding `/`, `\\`, NUL, a control character or an invisible format character (bidirectional controls, zero-width characters), or longer than 255 bytes. `details.reason` says which. Nothing is stored.',
  },
  BW_ERR_FILE_EXISTS: {
    status: 409,
    retryable: false,
    doc: 'A document of this name is already in the collection; upload with `?replace=true` to replace it. Nothing is stored.',
  },
  BW_ERR_UPLOAD_QUOTA: {
    status: 413,
    retryable: false,
    doc: 'The upload would take a collection or STORAGE_DIR past its quota (UPLOAD_*_MAX_BYTES, UPLOAD_*_MAX_FILES); `details` names the quota. Nothing of the upload is kept.',
  },
  BW_ERR_ORIGIN_REFUSED: {
    status: 403,
    retryable: false,
    doc: "The request's `Origin` is not allowed: a console (session cookie) request that changes something (POST, PUT, PATCH, DELETE) must come from the service's own origin; a web channel request from an origin not on the channel's `allowed_origins` nor the service's own origin (PUBLIC_BASE_URL).",
  },
  BW_ERR_FORBIDDEN: {
    status: 403,
    retryable: false,
    doc: "The caller's role may not use this route, or an agent asked for a bot it is not assigned to (docs/accounts.md has the table of roles and routes).",
  },
  BW_ERR_INVITE_INVALID: {
    status: 410,
    retryable: false,
    doc: 'The invite link is unknown, already used or past its end (INVITE_TTL_S); an owner makes a new one.',
  },
  BW_ERR_CONSOLE_NOT_BUILT: {
    status: 503,
    retryable: true,
    doc: 'The console is not built on this server (no `console/dist/index.html`); `npm run console:build` builds it (`./scripts/run.sh` does it when missing or stale).',
  },
  BW_ERR_BAD_TOKEN: {
    status: 401,
    retryable: false,
    doc: 'A web visitor token is missing, malformed, signed with another key or for another bot. Start a new session (`POST /v2/web/<app_id>/sessions`).',
  },
  BW_ERR_TOKEN_EXPIRED: {
    status: 401,
    retryable: false,
    doc: 'A web visitor token is past its expiry (WEB_TOKEN_TTL_S). Start a new session; renew tokens before they expire.',
  },
  BW_ERR_TOO_MANY_STREAMS: {
    status: 503,
    retryable: true,
    doc: "This api process already serves WEB_MAX_EVENT_STREAMS web event streams and no bot holds more than its share (a bot holding at least two fewer than the bot holding most is let in, and that bot's newest stream ends); try again (Retry-After) or run more api processes.",
  },
  BW_ERR_VISITOR_STREAMS: {
    status: 429,
    retryable: true,
    doc: 'This visitor already has WEB_MAX_STREAMS_PER_VISITOR web event streams open on this api process (all its tokens count); close one (Retry-After).',
  },
  BW_ERR_HANDOFF_CLAIMED: {
    status: 409,
    retryable: false,
    doc: 'Another agent claimed this handoff first (or it is no longer waiting); `details.claimed_by` names who holds it.',
  },
  BW_ERR_WINDOW_CLOSED: {
    status: 422,
    retryable: false,
    doc: "WhatsApp lets a business write free text only within 24 hours of the user's last message; this user's window is closed (details: last_inbound_at, closed_at). Nothing was sent.",
  },
  BW_ERR_MESSAGING_LIMIT: {
    status: 429,
    retryable: true,
    doc: "The WhatsApp number started conversations (a template to a user whose 24-hour window is closed) with as many users in the last 24 hours as its messaging limit allows (the channel's messaging_limit, Meta's tier); details: limit, retry_at, when the oldest leaves the 24 hours. Nothing was sent.",
  },
  BW_ERR_BROADCAST_STATE: {
    status: 409,
    retryable: false,
    doc: "The broadcast's status does not allow this move (a finished or cancelled broadcast cannot be paused, resumed or cancelled; only a paused one is resumed); `details.status` is its status now.",
  },
  BW_ERR_TEMPLATE: {
    status: 422,
    retryable: false,
    doc: 'A WhatsApp template cannot be sent as asked: none of the channel has this name and language (sync them), it is not approved, its parameters do not fill its placeholders, or the channel is not WhatsApp (details name which). Nothing was sent.',
  },
  BW_ERR_IDEMPOTENCY_MISMATCH: {
    status: 409,
    retryable: false,
    doc: 'This idempotency key was used for another request (another recipient or message); a key stands for one request. Nothing was sent.',
  },
  BW_ERR_HANDOFF_NOT_YOURS: {
    status: 409,
    retryable: false,
    doc: 'Only the agent who claimed a handoff may reply, show typing, release, return or close it; claim it first.',
  },
  BW_ERR_HANDOFF_ENDED: {
    status: 409,
    retryable: false,
    doc: 'The handoff was returned, closed or timed out: nothing more can be done with it.',
  },
  BW_ERR_UNKNOWN_STATE: {
    status: 400,
    retryable: false,
    doc: "A handoff was to be returned, or a message's answer sent (flow_state), to a state the bot's published flow does not have, or (flow_state) that waits for nothing.",
  },
} as const;

export type ErrorCode = keyof typeof ERRORS;

/** An error with a stable code from the catalogue; the original failure rides along as `cause`. */
export class BotwireError extends Error {
  override name = 'BotwireError';
  readonly code: ErrorCode;
  /** Extra machine-readable facts (a schema path, a topic name); never secrets. */
  readonly details: Record<string, unknown> | undefined;
  readonly #retryable: boolean | undefined;
  readonly #status: number | undefined;

  /**
   * @param options.retryable overrides the code's usual answer for this one failure: an upstream
   *   that refused (4xx) rather than failed (5xx, timeout) is `BW_ERR_UPSTREAM` all the same, but
   *   trying again cannot help.
   * @param options.status overrides the code's HTTP status where its `doc` says so (a stored flow
   *   that fails validation is 422, a flow sent in the request 400).
   */
  constructor(
    code: ErrorCode,
    message: string,
    options?: {
      cause?: unknown;
      details?: Record<string, unknown>;
      retryable?: boolean;
      status?: number;
    },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options?.details;
    this.#retryable = options?.retryable;
    this.#status = options?.status;
  }

  get status(): number {
    return this.#status ?? ERRORS[this.code].status;
  }

  get retryable(): boolean {
    return this.#retryable ?? ERRORS[this.code].retryable;
  }
}

/** Whether a failure may go away if the same work is tried again. Unknown errors are retryable. */
export function isRetryable(error: unknown): boolean {
  return error instanceof BotwireError ? error.retryable : true;
}

/**
 * Driver error codes that mean Redis or Postgres cannot be reached right now: a refused, reset or
 * timed-out connection, or Postgres shutting down (57P01-57P03) or refusing a connection (08xxx).
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);

/** Messages of drivers that give no code: knex's pool, pg's client, ioredis. */
const UNREACHABLE_MESSAGE =
  /Timeout acquiring a connection|Connection is closed|Connection terminated|Reached the max retries per request limit/;

/**
 * A Redis Cluster moving or losing slots (a failover, a reshard): redirections the client could
 * not follow (`MOVED`, `ASK`, or more of them than it follows), slots without a master
 * (`CLUSTERDOWN`), a multi-key command during a slot's migration (`TRYAGAIN`), a replica not yet
 * promoted (`READONLY`, `MASTERDOWN`) or still loading (`LOADING`), and ioredis' own words for a
 * cluster it cannot reach. Each passes once the cluster settles: an outage to wait out.
 */
const CLUSTER_MOVING =
  /^(MOVED|ASK|CLUSTERDOWN|TRYAGAIN|READONLY|MASTERDOWN|LOADING)\b|Too many Cluster redirections|Failed to refresh slots cache|None of startup nodes is available|Cluster isn't ready|Cluster is disconnected/;

/**
 * Whether a failure means Redis or Postgres is out of reach (an outage, not the fault of the work
 * at hand): `BW_ERR_UNAVAILABLE`, or a driver's connection failure anywhere in the cause chain.
 * An error we classified otherwise (`BW_ERR_UPSTREAM` wrapping an unreachable provider) and a
 * failed `fetch` (an outside HTTP service) are not outages of ours.
 */
export function isUnavailable(error: unknown, depth = 0): boolean {
  for (let e: unknown = error; e && depth < 10; e = (e as { cause?: unknown }).cause, depth += 1) {
    if (e instanceof BotwireError) return e.code === 'BW_ERR_UNAVAILABLE';
    if (e instanceof TypeError && e.message === 'fetch failed') return false;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE_CODES.has(code)) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && UNREACHABLE_MESSAGE.test(message)) return true;
    if (typeof message === 'string' && CLUSTER_MOVING.test(message)) return true;
    // Node reports a failed connection to several addresses (localhost) as an AggregateError.
    if (e instanceof AggregateError && e.errors.some((inner) => isUnavailable(inner, depth + 1)))
      return true;
  }
  return false;
}

/**
 * Postgres error classes that may pass on their own: connection exceptions (08), serialization
 * failures and deadlocks (40), insufficient resources (53), lock not available (55), operator
 * intervention such as a statement timeout (57).
 */
const PASSING_SQL_CLASSES = new Set(['08', '40', '53', '55', '57']);

/**
 * Whether the same statement may succeed if simply tried again: an outage (`isUnavailable`), or a
 * Postgres error of a class that passes on its own. Not a wrong value or a missing row.
 */
export function isTransient(error: unknown): boolean {
  if (isUnavailable(error)) return true;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && code.length === 5 && PASSING_SQL_CLASSES.has(code.slice(0, 2));
}

/** What was thrown, as text: an error's message, anything else as a string. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The catalogue code of any thrown value (`BW_ERR_HANDLER` for errors we did not classify). */
export function codeOf(error: unknown): ErrorCode {
  return error instanceof BotwireError ? error.code : 'BW_ERR_HANDLER';
}
