/**
 * The pipeline bench's floor: the least code that still has the shape PRODUCT.md gives botwire (an
 * HTTP edge, then `channel` in, `flow` and `channel` out, each a process of its own joined by Redis
 * Streams with consumer groups, and the conversation state in Postgres). It is a lower bound of
 * what a turn costs in that shape, at the batching the rate gives, not a design to run: it has
 * none of botwire's guarantees.
 *
 * Each process runs one role (FLOOR_ROLE):
 * - `edge`: `node:http` (no Koa, no schema, no dedupe), checks the bot's secret header and XADDs
 *   the raw body to the channel stream, answering 200 once it is in.
 * - `channel`: reads the channel stream; an update from the edge is published to the flow stream
 *   as `{id, bot, chat, text}`; an answer from flow is POSTed to `sendMessage` with the client
 *   botwire's channel uses (`createJsonPost`).
 * - `flow`: reads the flow stream, writes each chat's last text in one upsert per batch read, and
 *   publishes the echo to the channel stream.
 *
 * Each stream is one key read by one consumer, up to 100 entries at a time; a batch's entries are
 * handled together and acknowledged in one `XACK` once all their effects are done, and the next
 * batch is read after that. Commands go on an auto-pipelined connection, blocking reads on one of
 * their own (as botwire's); statements are named prepared statements (as botwire's hot ones). Not
 * there: partitions, leases and order with two processes, per-entry acknowledgement while the next
 * entries are read, reclaiming and retries, dead letters, trimming, schemas, pacing, events,
 * per-bot accounting. A failed handler ends the process.
 *
 * With FLOOR_RECORDS=on it also writes, at the least, the records botwire keeps of a turn in Redis
 * and Postgres: the edge publishes an update once per update id (a marker set with the XADD in one
 * script; its key has no hash tag, so single-node Redis only), channel inserts each inbound
 * message's row (its transcript; not read back), and before its calls reads which of the batch's
 * answers were already sent, then records the calls made (the outbound transcript and what makes
 * a call once): one statement each per batch read.
 *
 * FLOOR_LINGER_MS (default 0): after a read that returned entries, wait this long before the next
 * read, so that more arrive to share it (botwire's `CONSUMER_LINGER_MS`).
 *
 * Env: FLOOR_ROLE, FLOOR_PREFIX (key prefix), REDIS_URL; edge: FLOOR_PORT, FLOOR_BOTS (JSON:
 * `[{ "token", "secret" }]`, bot i at `/bot/<i>`); channel: FLOOR_BOTS, TELEGRAM_API_URL,
 * DATABASE_URL; flow: DATABASE_URL; FLOOR_RECORDS (`on` or `off`, the default), FLOOR_LINGER_MS.
 * `GET /healthz` on the edge answers 200; channel and flow are their stream group's consumers
 * once they read.
 */
import { createServer } from 'node:http';
import { once } from 'node:events';
import { Redis } from 'ioredis';
import pg from 'pg';
import { createJsonPost } from '../../src/channel/json-post.ts';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const role = required('FLOOR_ROLE');
const prefix = required('FLOOR_PREFIX');
const CHANNEL = `${prefix}:floor:channel`;
const FLOW = `${prefix}:floor:flow`;
const GROUP = 'floor';
const LINGER_MS = Number(process.env.FLOOR_LINGER_MS || 0);
const redisUrl = required('REDIS_URL');
const commands = new Redis(redisUrl, { enableAutoPipelining: true, connectionName: 'floor' });
let stopping = false;

type Entry = [id: string, fields: string[]];

/** Reads `stream` as the group's only consumer until SIGTERM, handing each batch to `handle`. */
async function consume(stream: string, handle: (data: string[]) => Promise<void>): Promise<void> {
  await commands.xgroup('CREATE', stream, GROUP, '0', 'MKSTREAM').catch((error: Error) => {
    if (!error.message.includes('BUSYGROUP')) throw error;
  });
  // Made here rather than by the first read, so that the bench sees the process is about to read.
  await commands.xgroup('CREATECONSUMER', stream, GROUP, role);
  const reader = new Redis(redisUrl, { connectionName: 'floor-reader' });
  while (!stopping) {
    const read = (await reader.xreadgroup(
      'GROUP',
      GROUP,
      role,
      'COUNT',
      100,
      'BLOCK',
      1000,
      'STREAMS',
      stream,
      '>',
    )) as [string, Entry[]][] | null;
    const entries = read?.[0]?.[1] ?? [];
    if (entries.length === 0) continue;
    // Each entry holds its JSON in one field, `data`, as the bus's.
    await handle(entries.map(([, fields]) => fields[1]!));
    await commands.xack(stream, GROUP, ...entries.map(([id]) => id));
    if (LINGER_MS > 0) await new Promise((resolve) => setTimeout(resolve, LINGER_MS));
  }
  reader.disconnect();
}

interface Inbound {
  bot: number;
  update: { update_id: number; message?: { chat: { id: number }; text?: string } };
}
interface Turn {
  /** `<bot>:<update id>`: what a turn's records are keyed by. */
  id: string;
  bot: number;
  chat: number;
  text: string;
}

const records = process.env.FLOOR_RECORDS === 'on';
/** Publishes ARGV[1] to KEYS[2] unless KEYS[1], the update's marker, is already set. */
const PUBLISH_ONCE = `if redis.call('SET', KEYS[1], '1', 'NX', 'EX', 86400) then
  return redis.call('XADD', KEYS[2], '*', 'data', ARGV[1]) end
return false`;
commands.defineCommand('floorPublishOnce', { numberOfKeys: 2, lua: PUBLISH_ONCE });
type PublishOnce = (seen: string, stream: string, data: string) => Promise<string | null>;

function openPool(): pg.Pool {
  // Idle connections are kept for the run, as the grammY bot's and botwire's pools keep theirs.
  return new pg.Pool({ connectionString: required('DATABASE_URL'), max: 4, idleTimeoutMillis: 0 });
}

if (role === 'edge') {
  const bots = JSON.parse(required('FLOOR_BOTS')) as { secret: string }[];
  const publishOnce = (commands as unknown as { floorPublishOnce: PublishOnce }).floorPublishOnce;
  const publish = (bot: string, raw: string): Promise<unknown> => {
    const data = `{"bot":${bot},"update":${raw}}`;
    if (!records) return commands.xadd(CHANNEL, '*', 'data', data);
    const updateId = (JSON.parse(raw) as { update_id: number }).update_id;
    return publishOnce.call(commands, `${prefix}:floor:seen:${bot}:${updateId}`, CHANNEL, data);
  };
  const server = createServer((req, res) => {
    const bot = /^\/bot\/(\d+)$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'POST' || bot === undefined) {
      res.writeHead(req.url === '/healthz' ? 200 : 404);
      res.end();
      return;
    }
    if (req.headers['x-telegram-bot-api-secret-token'] !== bots[Number(bot)]?.secret) {
      res.writeHead(401);
      res.end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      publish(bot, Buffer.concat(chunks).toString('utf8')).then(
        () => {
          res.writeHead(200);
          res.end();
        },
        (error: unknown) => {
          console.error(`floor edge: ${String(error)}`);
          res.writeHead(500);
          res.end();
        },
      );
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(Number(required('FLOOR_PORT')), '127.0.0.1');
  await once(server, 'listening');
  process.once('SIGTERM', () => {
    server.close(() => process.exit(0));
    server.closeIdleConnections();
  });
} else if (role === 'channel') {
  const bots = JSON.parse(required('FLOOR_BOTS')) as { token: string }[];
  const api = required('TELEGRAM_API_URL');
  const post = createJsonPost();
  const pool = records ? openPool() : undefined;
  await pool?.query(
    `create table if not exists floor_messages (turn text, direction text, chat bigint,
       text text, primary key (turn, direction))`,
  );
  /** Records `turns` as messages of `direction`, once each. */
  const record = (turns: Turn[], direction: 'in' | 'out'): Promise<unknown> | undefined =>
    turns.length === 0
      ? undefined
      : pool?.query({
          name: 'floor_record',
          text: `insert into floor_messages (turn, direction, chat, text)
           select t, $2, c, x from unnest($1::text[], $3::bigint[], $4::text[]) as u (t, c, x)
           on conflict do nothing`,
          values: [
            turns.map((t) => t.id),
            direction,
            turns.map((t) => t.chat),
            turns.map((t) => t.text),
          ],
        });
  const send = async ({ bot, chat, text }: Turn): Promise<void> => {
    const body = JSON.stringify({ chat_id: chat, text });
    const response = await post(`${api}/bot${bots[bot]!.token}/sendMessage`, body, {}, 10_000);
    if (response.status !== 200) console.error(`floor channel: sendMessage ${response.status}`);
  };
  process.once('SIGTERM', () => (stopping = true));
  await consume(CHANNEL, async (batch) => {
    const inbound: Turn[] = [];
    let outbound: Turn[] = [];
    for (const data of batch) {
      const message = JSON.parse(data) as Inbound | { out: Turn };
      if ('out' in message) {
        outbound.push(message.out);
        continue;
      }
      const { update_id: updateId, message: m } = message.update;
      if (m?.text === undefined) continue;
      inbound.push({
        id: `${message.bot}:${updateId}`,
        bot: message.bot,
        chat: m.chat.id,
        text: m.text,
      });
    }
    if (pool && outbound.length > 0) {
      const { rows } = await pool.query<{ turn: string }>({
        name: 'floor_recorded',
        text: `select turn from floor_messages where direction = 'out' and turn = any($1::text[])`,
        values: [outbound.map((t) => t.id)],
      });
      const sent = new Set(rows.map((row) => row.turn));
      outbound = outbound.filter((t) => !sent.has(t.id));
    }
    await Promise.all([
      record(inbound, 'in'),
      ...inbound.map((t) => commands.xadd(FLOW, '*', 'data', JSON.stringify(t))),
      Promise.all(outbound.map(send)).then(() => record(outbound, 'out')),
    ]);
  });
  post.close();
  await pool?.end();
  commands.disconnect();
} else if (role === 'flow') {
  const pool = openPool();
  await pool.query('create table if not exists floor_state (key text primary key, said text)');
  process.once('SIGTERM', () => (stopping = true));
  await consume(FLOW, async (batch) => {
    const turns = batch.map((data) => JSON.parse(data) as Turn);
    // The batch's last text per chat, in one statement (a key twice would fail the upsert).
    const said = new Map(turns.map((t) => [`${t.bot}:${t.chat}`, t.text]));
    await pool.query({
      name: 'floor_state',
      text: `insert into floor_state (key, said) select * from unnest($1::text[], $2::text[])
       on conflict (key) do update set said = excluded.said`,
      values: [[...said.keys()], [...said.values()]],
    });
    await Promise.all(
      turns.map((t) =>
        commands.xadd(
          CHANNEL,
          '*',
          'data',
          JSON.stringify({ out: { ...t, text: `echo: ${t.text}` } }),
        ),
      ),
    );
  });
  await pool.end();
  commands.disconnect();
} else {
  throw new Error(`FLOOR_ROLE must be edge, channel or flow (got ${role})`);
}
