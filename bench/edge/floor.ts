/**
 * The edge's floors: the baseline (Koa, koa-bodyparser, ioredis) plus what no edge keeping
 * botwire's guarantees can skip for a WhatsApp callback, with none of the edge's own code around
 * it (no router, bot look-up, metrics, error shaping or logging). Started as a child process by
 * run.ts, once per level (`FLOOR_LEVEL`):
 *
 * - `once`: the callback's signature checked (`X-Hub-Signature-256`, the HMAC-SHA256 of the raw
 *   body with the app secret) and the body published once per message id (a marker set with `NX`
 *   and the `XADD` in one script, as `Producer.publishOnce`).
 * - `contract`: that, and what PRODUCT.md asks of the edge besides: the callback checked against
 *   its JSON Schema, each message turned into a `channel_in` message (a turn id, the ordering
 *   key, the bot's input) checked against the topic's schema, and published to its partition
 *   with the bot's turn entered in its ledger by the same script (`Producer.publishOnceAdmitted`,
 *   the per-bot backlog that keeps one bot's load from another's).
 *
 * Env: FLOOR_PORT, FLOOR_STREAM (for `once`; the key prefix for `contract`), FLOOR_APP_SECRET
 * (required), FLOOR_LEVEL (`once`, default, or `contract`), REDIS_URL (default
 * redis://127.0.0.1:6379), FLOOR_MAXLEN (approximate stream length kept, default 1000000),
 * FLOOR_PARTITIONS (for `contract`, default 8).
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { Redis } from 'ioredis';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { botTurnsKey, parkedKey } from '../../src/shared/bot-turns.ts';
import { PRODUCER_SCRIPTS, Producer } from '../../src/shared/bus/producer.ts';
import { SchemaRegistry } from '../../src/shared/schemas.ts';
import { SETTINGS } from '../../src/config.ts';

const port = Number(process.env.FLOOR_PORT);
const stream = process.env.FLOOR_STREAM ?? '';
const secret = process.env.FLOOR_APP_SECRET ?? '';
const level = process.env.FLOOR_LEVEL ?? 'once';
const maxLen = Number(process.env.FLOOR_MAXLEN ?? 1_000_000);
const partitions = Number(process.env.FLOOR_PARTITIONS ?? 8);
if (!Number.isInteger(port) || port <= 0 || !stream || !secret) {
  console.error('floor: FLOOR_PORT, FLOOR_STREAM and FLOOR_APP_SECRET are required');
  process.exit(2);
}
if (level !== 'once' && level !== 'contract') {
  console.error('floor: FLOOR_LEVEL is once or contract');
  process.exit(2);
}

/** The marker's lifetime: the edge's once-per-update window. */
const ONCE_SECONDS = SETTINGS.DEDUPE_TTL_S.default;
const PUBLISH_ONCE = `
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
  return redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'data', ARGV[3])
end
return false`;

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', {
  connectionName: 'bench-floor',
  scripts: { ...PRODUCER_SCRIPTS, publishOnce: { lua: PUBLISH_ONCE, numberOfKeys: 2 } },
}) as Redis & {
  publishOnce(
    marker: string,
    key: string,
    ttl: number,
    maxLen: number,
    data: string,
  ): Promise<unknown>;
};
const schemas = new SchemaRegistry();
const producer = new Producer({ redis, schemas, prefix: stream, maxLen, partitions });
// One bot with one channel, as the edge's bench bot: its keys as the edge names them.
const appId = randomUUID();
const channelId = randomUUID();
const ledger = {
  key: botTurnsKey(stream, appId),
  counted: [parkedKey(stream, channelId)],
};
const horizonMs = SETTINGS.EDGE_BOT_TURN_HORIZON_S.default * 1000;

function signed(raw: string, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice(7), 'hex');
  const expected = createHmac('sha256', secret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

interface WhatsappMessage {
  id: string;
  from: string;
}
interface WhatsappBody {
  entry: {
    changes: {
      value: {
        metadata: unknown;
        contacts?: unknown[];
        messages?: WhatsappMessage[];
      };
    }[];
  }[];
}

/** Publishes the callback's messages as channel_in, once each; false when its schema fails. */
async function publishContract(body: unknown): Promise<boolean> {
  const checked = schemas.validate<WhatsappBody>('http/whatsapp-callback', body);
  if (!checked.ok) return false;
  const receivedAt = new Date().toISOString();
  const messages = checked.value.entry.flatMap(({ changes }) =>
    changes.flatMap(({ value }) =>
      (value.messages ?? []).map((message) => ({
        id: `whatsapp:${channelId}:${message.id}`,
        message: {
          source: 'whatsapp',
          turn_id: randomUUID(),
          ordering_key: `${appId}:${message.from}`,
          intent: 'channel_in',
          bot_input: {
            kind: 'message',
            app_id: appId,
            channel_id: channelId,
            channel_type: 'whatsapp',
            received_at: receivedAt,
            metadata: value.metadata,
            contact: value.contacts?.[0],
            message,
          },
        },
      })),
    ),
  );
  await producer.publishOnceAdmitted('channel', messages, ONCE_SECONDS, {
    ledgers: [ledger],
    members: messages.map(({ message }) => ({ ledger: 0, member: message.turn_id })),
    max: 100_000_000,
    horizonMs,
    now: Date.now(),
  });
  return true;
}

const app = new Koa();
app.use(bodyParser({ enableTypes: ['json'] }));
app.use(async (ctx) => {
  if (ctx.method !== 'POST') {
    ctx.body = { status: 'ok' }; // the readiness probe
    return;
  }
  const raw = ctx.request.rawBody; // kept by koa-bodyparser: the signature covers these bytes
  if (typeof raw !== 'string' || !signed(raw, ctx.get('x-hub-signature-256') || undefined)) {
    ctx.status = 401;
    return;
  }
  if (level === 'contract') {
    if (!(await publishContract(ctx.request.body))) ctx.status = 400;
    else ctx.body = { ok: true };
    return;
  }
  const body = ctx.request.body as Partial<WhatsappBody>;
  const id = body.entry?.[0]?.changes?.[0]?.value?.messages?.[0]?.id;
  if (!id) {
    ctx.status = 400;
    return;
  }
  await redis.publishOnce(
    `${stream}:once:${id}`,
    stream,
    ONCE_SECONDS,
    maxLen,
    JSON.stringify(body),
  );
  ctx.body = { ok: true };
});

const handle = app.callback();
const server = createServer((req, res) => void handle(req, res)); // Koa answers its own errors
server.keepAliveTimeout = 65_000; // as the edge
server.listen(port, '127.0.0.1');

process.on('SIGTERM', () => {
  server.close(() => {
    redis.disconnect();
    process.exit(0);
  });
  server.closeIdleConnections();
});
