/**
 * How fast `GET /v2/bots/<app_id>/conversations` answers with its filters and text search on a
 * transcript of BENCH_MESSAGES messages (default 100,000), through the route's own query
 * (`listConversations`). Seeds a scratch schema of the database at BENCH_DATABASE_URL, runs each
 * query BENCH_RUNS times (default 30), prints the median and the slowest in ms and the plan's
 * top node, and drops the schema. See README.md.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { listConversations, type ConversationFilters } from '../../src/api/admin/conversations.ts';
import { createDb } from '../../src/shared/db.ts';
import { intEnv } from '../lib/setup.ts';

const MESSAGES = intEnv('BENCH_MESSAGES', 100_000, 1000);
const RUNS = intEnv('BENCH_RUNS', 30, 1);
const BOTS = 10;
const PER_CONVERSATION = 5;
const DATABASE_URL =
  process.env.BENCH_DATABASE_URL || 'postgres://postgres:postgres@localhost:5432/botwire_test';
const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));

const schema = `bwbench_${randomBytes(4).toString('hex')}`;
const admin = createDb(DATABASE_URL, { poolMax: 1 });
await admin.raw('create schema ??', [schema]);
const db = createDb(DATABASE_URL, { poolMax: 2, searchPath: schema });
try {
  await db.migrate.latest({ directory: MIGRATIONS, loadExtensions: ['.ts'], schemaName: schema });
  const conversations = Math.ceil(MESSAGES / PER_CONVERSATION);
  const started = Date.now();
  // Words: 2,000 of them, drawn with a skew (the first ones in most messages), 8 to a message.
  await db.raw(`
    insert into bots (app_id, name, flow)
      select 'bot' || b, 'bot ' || b, '{}' from generate_series(0, ${BOTS - 1}) b;
    insert into channels (app_id, type, credentials)
      select 'bot' || b, t, 'x' from generate_series(0, ${BOTS - 1}) b,
        unnest(array['telegram', 'whatsapp']) t;
    insert into users (pid) select 'u' || n from generate_series(1, ${conversations}) n;
    insert into conversations (app_id, channel_id, user_pid, chat_id, last_message_at)
      select 'bot' || (n % ${BOTS}),
        (select id from channels where app_id = 'bot' || (n % ${BOTS})
           and type = case when n % 3 = 0 then 'whatsapp' else 'telegram' end),
        'u' || n, n::text, now() - (n || ' seconds')::interval
      from generate_series(1, ${conversations}) n;
    insert into messages (conversation_id, direction, message_type, body)
      select c.id, case when k % 2 = 0 then 'in' else 'out' end, 'text',
        jsonb_build_object('message_type', 'text', 'text', (
          select string_agg('w' || substr(md5((1 + floor(power(random(), 3) * 2000))::int::text), 1, 6), ' ')
          from generate_series(1, 8 + k * 0)))
      from conversations c, generate_series(1, ${PER_CONVERSATION}) k;
    update messages set body = jsonb_set(body, '{text}', to_jsonb((body->>'text') || ' zebracorn'))
      where id in (select id from messages order by id desc limit 5);
    analyze;
  `);
  // The bulk insert left the index's new entries in GIN's pending list, which every search scans
  // whole; autovacuum merges it in production. Measured merged unless BENCH_PENDING_LIST=1.
  if (!process.env.BENCH_PENDING_LIST) {
    await db.raw(`select gin_clean_pending_list('messages_text_search'::regclass)`);
  }
  const common = `w${(await db.raw<{ rows: { w: string }[] }>(`select substr(md5('1'), 1, 6) as w`)).rows[0]!.w}`;
  const { rows: bots } = await db.raw<{ rows: { app_id: string }[] }>(
    `select c.app_id from messages m join conversations c on c.id = m.conversation_id
     order by m.id desc limit 1`,
  );
  const appId = bots[0]!.app_id;
  process.stdout.write(
    `seeded ${MESSAGES.toLocaleString('en')} messages in ${conversations.toLocaleString('en')} conversations of ${BOTS} bots in ${((Date.now() - started) / 1000).toFixed(1)} s\n`,
  );
  const cases: [string, ConversationFilters][] = [
    ['no filter', {}],
    ['channel_type=whatsapp', { channel_type: 'whatsapp' }],
    [
      'from/to (one hour)',
      {
        from: new Date(Date.now() - 7_200_000).toISOString(),
        to: new Date(Date.now() - 3_600_000).toISOString(),
      },
    ],
    [`q=${common} (in about half the messages)`, { q: common }],
    [`q=${common.slice(0, 4)} (a prefix)`, { q: common.slice(0, 4) }],
    ['q=zebracorn (5 messages)', { q: 'zebracorn' }],
    ['q=nothingmatches', { q: 'nothingmatches' }],
    [`q=${common} & channel_type=whatsapp`, { q: common, channel_type: 'whatsapp' }],
  ];
  process.stdout.write(
    `| query (limit 20) | median ms | slowest ms | items |\n| --- | --- | --- | --- |\n`,
  );
  for (const [label, filters] of cases) {
    const times: number[] = [];
    let items = 0;
    for (let i = 0; i < RUNS; i += 1) {
      const t0 = process.hrtime.bigint();
      const page = await listConversations(db, appId, filters, 20);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
      items = page.items.length;
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    process.stdout.write(
      `| ${label} | ${median.toFixed(1)} | ${times[times.length - 1]!.toFixed(1)} | ${items} |\n`,
    );
  }
} finally {
  await db.destroy();
  await admin.raw('drop schema ?? cascade', [schema]);
  await admin.destroy();
}
