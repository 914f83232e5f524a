/**
 * The bad-input corpus: tables of hostile or malformed requests with the answer each must get.
 * A case is data; `test/corpus.test.ts` runs every table against the real edge (in-process, real
 * Redis and Postgres) and checks the status, the error code, and that nothing was published or
 * stored. To add cases (documents, a new route), add a table file here and list it in `index.ts`.
 */

/** What a case may refer to: the bots and secrets the runner created before the corpus ran. */
export interface CorpusContext {
  adminKey: string;
  /** A Telegram bot with its webhook registered: `secret` is what Telegram sends. */
  telegram: { appId: string; channelId: string; secret: string; botToken: string };
  /** A second Telegram bot: its secret must not open the first. */
  otherTelegram: { appId: string; secret: string };
  /** A WhatsApp bot with an app secret (signatures required) and a verify token. */
  whatsapp: {
    appId: string;
    channelId: string;
    number: string;
    appSecret: string;
    verifyToken: string;
  };
  /** A switched-off bot with both a Telegram and a WhatsApp channel. */
  inactive: { appId: string; secret: string; number: string; appSecret: string };
  /** A bot with a web channel, and a visitor token of it (for the event stream). */
  web: { appId: string; token: string };
  /** A conversation id that exists (for the transcript routes). */
  conversationId: string;
  /** A fresh integer per call, so repeated runs of the corpus never collide on platform ids. */
  fresh(): number;
}

/** One HTTP request. `body` is sent as JSON; `raw` as given (string or bytes). */
export interface CorpusRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  raw?: string | Buffer;
  /** Send the admin bearer key (default: true for admin paths, false for callbacks). */
  auth?: boolean;
}

/** The answer a case must get and what it may change. */
export interface CorpusExpectation {
  status: number;
  /** `error.code` of a 4xx; absent for accepted requests. */
  code?: string;
  /**
   * Authentic payloads that fail their schema are kept in the quarantine stream (docs/edge.md):
   * the stream grows by exactly one entry. Everything else leaves it alone.
   */
  quarantined?: boolean;
}

export interface HttpCase {
  name: string;
  /** The kind of hostility, for the totals: wrong-type, missing-field, huge, nesting, ... */
  kind: string;
  /** telegram, whatsapp, admin, flow, document ... */
  surface: string;
  request: (c: CorpusContext) => CorpusRequest;
  expect: CorpusExpectation;
}

/**
 * A replayed platform request: sent `times` times, every answer is 200 and the `channel` topic
 * grows by `publishes` entries in all (the first delivery publishes, the rest are duplicates).
 * The request function is called once, so every send is byte-identical unless `vary` is set.
 */
export interface ReplayCase {
  name: string;
  kind: 'replay';
  surface: string;
  request: (c: CorpusContext) => CorpusRequest;
  /** Makes the n-th send (n >= 1) from the first one; for replays that differ in body only. */
  vary?: (first: CorpusRequest, n: number, c: CorpusContext) => CorpusRequest;
  times: number;
  publishes: number;
}

/** A topic script run: `./scripts/<script> ...args` must exit `exit` and print `error: <code>:`. */
export interface ScriptCase {
  name: string;
  kind: string;
  surface: 'scripts';
  script: string;
  args: string[];
  exit: number;
  code: string;
}

export type Case = HttpCase | ReplayCase | ScriptCase;

export const isReplay = (c: Case): c is ReplayCase => c.kind === 'replay';
export const isScript = (c: Case): c is ScriptCase => c.surface === 'scripts';

/** JSON nested `depth` levels deep: `[[[...]]]`. */
export function nested(depth: number, open = '[', close = ']', inner = '1'): string {
  return open.repeat(depth) + inner + close.repeat(depth);
}
