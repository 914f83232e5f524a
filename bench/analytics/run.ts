/**
 * The analytics bench (`npm run bench:analytics`), see README.md:
 *
 * 1. Cost per turn: BENCH_TURNS turns (default 10,000) of BENCH_CONVERSATIONS conversations
 *    (default 500) written as flow writes them (`batchedSaveState`, group commit), in rounds
 *    alternating without analytics counts and with a typical turn's (two states touched), on one
 *    Postgres connection: wall time, this process's CPU and the Postgres backend's CPU per turn,
 *    WAL bytes and rows written per turn. Without counts is the baseline of the same run.
 * 1b. The same with BENCH_WRITERS connections (default 4) writing the one bot's turns at once,
 *    each its own group commit: turns a second with and without counts (the bot's rollup rows are
 *    shared by every writer).
 * 1c. Channel's record of a reply's first call without and with the service counts (the bot's
 *    response time): the same figures per reply.
 * 2. The page over a long history: rollups of BENCH_HISTORY_TURNS turns (default 10 million) of
 *    one bot over 366 days (18 day rows a day: 3 channels x 3 languages x 2 versions; 20 states;
 *    30 x BENCH_USERS_PER_DAY users, default 5,000; per channel a day 100 timing buckets and
 *    8 event counts), beside 4 other bots as large, then
 *    the route's own reads (`readAnalytics`, and `dayRows` and `serviceDayRows` for the CSVs) on a pool like the api's
 *    (its reads at once) BENCH_RUNS times (default 30) per range: median and p99 ms (goal: p99 under 300 ms), the 7-day range the baseline.
 *
 * Works in a scratch schema of BENCH_DATABASE_URL (default the test database), dropped at the end.
 */
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { AnalyticsFilter } from '../../src/api/analytics/filter.ts';
import { dayRows, readAnalytics } from '../../src/api/analytics/store.ts';
import { serviceDayRows } from '../../src/api/analytics/service.ts';
import type { TurnCounts } from '../../src/flow/analytics/turn-counts.ts';
import { batchedSaveState, type StoredState } from '../../src/flow/state-store.ts';
import { createDb, type Knex } from '../../src/shared/db.ts';
import { percentile } from '../pipeline/report.ts';
import { intEnv } from '../lib/setup.ts';
import { Meter, type Mode } from './meter.ts';
import { batchedRecords } from '../../src/channel/store.ts';
import { DAY_MS, dayOf } from '../../src/shared/utc-day.ts';

const TURNS = intEnv('BENCH_TURNS', 10_000, 100);
const CONVERSATIONS = intEnv('BENCH_CONVERSATIONS', 500, 10);
const HISTORY_TURNS = intEnv('BENCH_HISTORY_TURNS', 10_000_000, 1000);
const USERS_PER_DAY = intEnv('BENCH_USERS_PER_DAY', 5_000, 1);
const RUNS = intEnv('BENCH_RUNS', 30, 1);
const WRITERS = intEnv('BENCH_WRITERS', 4, 1);
const DATABASE_URL =
  process.env.BENCH_DATABASE_URL || 'postgres://postgres:postgres@localhost:5432/botwire_test';
const MIGRATIONS = fileURLToPath(new URL('../../migrations', import.meta.url));
const DAYS = 366;

const load = (): string => {
  const [one, five] = loadavg();
  return `${cpus().length} cores, load ${one?.toFixed(2)} / ${five?.toFixed(2)}`;
};
const today = dayOf();

async function seedConversations(db: Knex): Promise<string[]> {
  await db.raw(`
    insert into bots (app_id, name, flow) values ('bench', 'bench', '{}');
    insert into channels (app_id, type, credentials) values ('bench', 'telegram', 'x');
    insert into users (pid) select 'u' || n from generate_series(1, ${CONVERSATIONS}) n;
    insert into conversations (app_id, channel_id, user_pid, chat_id)
      select 'bench', (select id from channels where app_id = 'bench'), 'u' || n, n::text
      from generate_series(1, ${CONVERSATIONS}) n;
    insert into conversation_state (conversation_id, app_id, state, version, recent_turns)
      select id, 'bench', '{"state": "menu", "vars": {}}', 1, '[]' from conversations;
    analyze;
  `);
  return (await db('conversations').pluck('id')) as string[];
}

/** A typical counted turn: a user's answer at the menu leads to a state that ends. */
function countsOf(conversationId: string): TurnCounts {
  return {
    conversation_id: conversationId,
    app_id: 'bench',
    day: today,
    channel_type: 'telegram',
    language: 'en',
    flow_version: 1,
    conversations: 0,
    new_users: 0,
    messages_in: 1,
    messages_out: 1,
    completed: 1,
    reasks: 0,
    fallbacks: 0,
    handoffs: 0,
    unanswered: 0,
    states: [
      {
        state: 'menu',
        entered: 0,
        left_forward: 1,
        ended: 0,
        reasks: 0,
        fallbacks: 0,
        handoffs: 0,
      },
      {
        state: 'hours',
        entered: 1,
        left_forward: 0,
        ended: 1,
        reasks: 0,
        fallbacks: 0,
        handoffs: 0,
      },
    ],
  };
}

type Stored = Map<string, StoredState>;

async function costPerTurn(db: Knex): Promise<{ ids: string[]; stored: Stored }> {
  const ids = await seedConversations(db);
  const save = batchedSaveState(db);
  const stored = new Map<string, StoredState>(
    ids.map((id) => [
      id,
      { state: { state: 'menu', vars: {} }, version: 1, recentTurns: [], outbox: null },
    ]),
  );
  const meter = await Meter.of(db);
  const rounds = Math.max(2, Math.round(TURNS / ids.length));
  for (let round = 0; round < rounds; round += 1) {
    const mode: Mode = round % 2 === 0 ? 'without' : 'with';
    // As flow's consumers do: up to 64 turns at a time, those ending in one tick written together.
    await meter.round(mode, ids.length, async () => {
      for (let i = 0; i < ids.length; i += 64) {
        await Promise.all(
          ids.slice(i, i + 64).map(async (id) => {
            const previous = stored.get(id)!;
            const next = await save({
              appId: 'bench',
              conversationId: id,
              previous,
              state: { state: 'menu', vars: { round } },
              turnId: `r${round}:${id}`,
              outbox: [{ topic: 'channel', message: { text: 'Open 9 to 5.' } }],
              counts: mode === 'with' ? countsOf(id) : null,
            });
            stored.set(id, next);
          }),
        );
      }
    });
  }
  process.stdout.write(
    `\ncost per turn, ${rounds} rounds of ${ids.length} conversations alternated, batchedSaveState on one connection (${load()})\n\n` +
      meter.table('turn'),
  );
  return { ids, stored };
}

/**
 * What counting the service costs channel's record of a reply (docs/analytics.md): a turn's first
 * call recorded as channel records it (`batchedRecords`, group commit), without a bot to
 * count it for against with (timed: the bot's response time from the user's message, the turn's
 * newest inbound row). Each round's user messages are written first, outside the measure.
 */
async function recordCost(db: Knex, ids: string[]): Promise<void> {
  const record = batchedRecords(db).recordOutbound;
  const meter = await Meter.of(db);
  const rounds = Math.max(2, Math.round(TURNS / ids.length));
  for (let round = 0; round < rounds; round += 1) {
    const mode: Mode = round % 2 === 0 ? 'without' : 'with';
    await db('messages').insert(
      ids.map((id) => ({
        conversation_id: id,
        direction: 'in',
        turn_id: `c${round}:${id}`,
        message_type: 'text',
        body: { message_type: 'text', text: 'hours?' },
      })),
    );
    await meter.round(mode, ids.length, async () => {
      for (let i = 0; i < ids.length; i += 64) {
        await Promise.all(
          ids.slice(i, i + 64).map((id) =>
            record({
              conversationId: id,
              turnId: `c${round}:${id}`,
              seq: '0.0',
              message: { message_type: 'text', text: 'Open 9 to 5.' },
              outcome: { status: 'sent', platformMessageId: `${round}:${id}` },
              ...(mode === 'with' ? { appId: 'bench', channelType: 'telegram', timed: true } : {}),
            }),
          ),
        );
      }
    });
  }
  process.stdout.write(
    `\ncost per reply recorded, ${rounds} rounds of ${ids.length} conversations alternated, batchedRecords on one connection (${load()})\n\n` +
      meter.table('reply', 'replies'),
  );
}

/**
 * The same turns of the one bot written by BENCH_WRITERS processes' worth of connections at once
 * (each its own group commit over its own conversations), as flow processes sharing a busy bot
 * do: with counts they all add to the bot's same rollup rows, which a statement holds locked
 * until it commits. Turns a second with and without, alternated.
 */
async function concurrentWriters(ids: string[], stored: Stored, schema: string): Promise<void> {
  const dbs = Array.from({ length: WRITERS }, () =>
    createDb(DATABASE_URL, { poolMax: 1, searchPath: schema }),
  );
  try {
    const saves = dbs.map((db) => batchedSaveState(db));
    const shares = dbs.map((_, w) => ids.filter((_, i) => i % WRITERS === w));
    const rate: Record<'without' | 'with', { turns: number; ms: number }> = {
      without: { turns: 0, ms: 0 },
      with: { turns: 0, ms: 0 },
    };
    const rounds = Math.max(2, Math.round(TURNS / ids.length));
    for (let round = 0; round < rounds; round += 1) {
      const mode = round % 2 === 0 ? 'without' : 'with';
      const started = performance.now();
      await Promise.all(
        shares.map(async (share, w) => {
          for (let i = 0; i < share.length; i += 64) {
            await Promise.all(
              share.slice(i, i + 64).map(async (id) => {
                const next = await saves[w]!({
                  appId: 'bench',
                  conversationId: id,
                  previous: stored.get(id)!,
                  state: { state: 'menu', vars: { round, writers: true } },
                  turnId: `w${round}:${id}`,
                  outbox: [{ topic: 'channel', message: { text: 'Open 9 to 5.' } }],
                  counts: mode === 'with' ? countsOf(id) : null,
                });
                stored.set(id, next);
              }),
            );
          }
        }),
      );
      rate[mode].ms += performance.now() - started;
      rate[mode].turns += ids.length;
    }
    const perSecond = (mode: 'without' | 'with') => (rate[mode].turns / rate[mode].ms) * 1000;
    process.stdout.write(
      `\n${WRITERS} writers at once on one bot, ${rounds} rounds alternated (${load()})\n\n` +
        `| counts | turns | turns/s |\n|---|---:|---:|\n` +
        `| without | ${rate.without.turns} | ${perSecond('without').toFixed(0)} |\n` +
        `| with | ${rate.with.turns} | ${perSecond('with').toFixed(0)} |\n\n` +
        `with against without: ${(perSecond('with') / perSecond('without')).toFixed(2)}x the turns a second\n`,
    );
  } finally {
    await Promise.all(dbs.map((db) => db.destroy()));
  }
}

async function seedHistory(db: Knex): Promise<void> {
  const started = Date.now();
  const perDay = Math.round(HISTORY_TURNS / DAYS);
  const perRow = Math.max(1, Math.round(perDay / 18));
  await db.raw(`
    insert into bots (app_id, name, flow)
      select 'bot' || b, 'bot ' || b, '{}' from generate_series(0, 4) b;
    create temporary table dims as
      select c, l, v from unnest(array['telegram', 'whatsapp', 'web']) c,
        unnest(array['en', 'de', '']) l, generate_series(1, 2) v;
    insert into analytics_days (app_id, day, channel_type, language, flow_version, conversations,
        new_users, active_users, messages_in, messages_out, completed, reasks, fallbacks, handoffs, unanswered)
      select 'bot' || b, current_date - d, c, l, v, ${perRow} / 5, ${perRow} / 50, ${perRow} / 5,
        ${perRow}, ${perRow}, ${perRow} / 8, ${perRow} / 20, ${perRow} / 100, ${perRow} / 100, ${perRow} / 200
      from generate_series(0, 4) b, generate_series(0, ${DAYS - 1}) d, dims;
    insert into analytics_state_days (app_id, day, channel_type, language, flow_version, state,
        entered, left_forward, ended, handoffs, reasks, fallbacks)
      select 'bot' || b, current_date - d, c, l, v, 's' || s, ${perRow} / 10, ${perRow} / 12,
        ${perRow} / 80, ${perRow} / 300, ${perRow} / 60, ${perRow} / 400
      from generate_series(0, 4) b, generate_series(0, ${DAYS - 1}) d, dims, generate_series(1, 20) s;
    insert into analytics_timings (app_id, day, channel_type, measure, bucket, count)
      select 'bot' || b, current_date - d, c, 'bot_response', k, 1 + ${perRow} / 40
      from generate_series(0, 4) b, generate_series(0, ${DAYS - 1}) d,
        unnest(array['telegram', 'whatsapp', 'web']) c, generate_series(55, 94) k
      union all
      select 'bot' || b, current_date - d, c, 'agent_first_reply', k, 1
      from generate_series(0, 4) b, generate_series(0, ${DAYS - 1}) d,
        unnest(array['telegram', 'whatsapp', 'web']) c, generate_series(97, 156) k;
    insert into analytics_events (app_id, day, channel_type, event, code, count)
      select 'bot' || b, current_date - d, c, e, '', 2
      from generate_series(0, 4) b, generate_series(0, ${DAYS - 1}) d,
        unnest(array['telegram', 'whatsapp', 'web']) c,
        unnest(array['handoff_closed', 'handoff_returned', 'handoff_timed_out']) e
      union all
      select 'bot' || b, current_date - d, c, 'send_failed', code, 3
      from generate_series(0, 4) b, generate_series(0, ${DAYS - 1}) d,
        unnest(array['telegram', 'whatsapp', 'web']) c,
        unnest(array['400', '403', '131047', '131026', '500']) code;
    insert into analytics_users (app_id, conversation_id, channel_type, first_day, last_day)
      select 'bot0', md5('u' || n)::uuid, (array['telegram', 'whatsapp', 'web'])[1 + n % 3],
        current_date - (n % ${DAYS}) - (n % 30), current_date - (n % ${DAYS})
      from generate_series(1, ${USERS_PER_DAY} * 30) n;
    analyze;
  `);
  const counts = await db.raw<{ rows: { t: string; n: number }[] }>(`
    select 'analytics_days' as t, count(*)::int as n from analytics_days
    union all select 'analytics_state_days', count(*)::int from analytics_state_days
    union all select 'analytics_timings', count(*)::int from analytics_timings
    union all select 'analytics_events', count(*)::int from analytics_events
    union all select 'analytics_users', count(*)::int from analytics_users`);
  process.stdout.write(
    `\nseeded the rollups of ${HISTORY_TURNS.toLocaleString('en')} turns of bot0 over ${DAYS} days, and 4 other bots, in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
      counts.rows.map((r) => `${r.t} ${r.n.toLocaleString('en')} rows`).join(', ') +
      '\n',
  );
}

async function pageTimes(db: Knex): Promise<void> {
  const day = (back: number) => dayOf(Date.now() - back * DAY_MS);
  const filter = (days: number, extra: Partial<AnalyticsFilter> = {}): AnalyticsFilter => ({
    appId: 'bot0',
    from: day(days - 1),
    to: day(0),
    ...extra,
  });
  const cases: [string, () => Promise<unknown>][] = [
    ['JSON, 7 days (baseline)', () => readAnalytics(db, filter(7))],
    ['JSON, 30 days', () => readAnalytics(db, filter(30))],
    ['JSON, 90 days', () => readAnalytics(db, filter(90))],
    ['JSON, 366 days', () => readAnalytics(db, filter(366))],
    [
      'JSON, 30 days, channel_type=web',
      () => readAnalytics(db, filter(30, { channelType: 'web' })),
    ],
    ['JSON, 366 days, language=de', () => readAnalytics(db, filter(366, { language: 'de' }))],
    ['CSV rows, 366 days', () => dayRows(db, filter(366))],
    ['CSV service rows, 366 days', () => serviceDayRows(db, filter(366))],
  ];
  // One unmeasured pass: the first reads warm Postgres's caches.
  for (const [, run] of cases) await run();
  const lines: string[] = [];
  let baseline = 0;
  for (const [label, run] of cases) {
    const times: number[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const t0 = performance.now();
      await run();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const median = percentile(times, 0.5);
    baseline ||= median;
    lines.push(
      `| ${label} | ${median.toFixed(1)} | ${percentile(times, 0.99).toFixed(1)} | ${(median / baseline).toFixed(2)}x |`,
    );
  }
  process.stdout.write(
    `\nthe analytics reads over that history, ${RUNS} runs each, as the route's handler sees them without HTTP (${load()})\n\n` +
      `| read | median ms | p99 ms | median against 7 days |\n|---|---:|---:|---:|\n${lines.join('\n')}\n\ngoal: p99 under 300 ms\n`,
  );
}

const schema = `bwbench_${randomBytes(4).toString('hex')}`;
const admin = createDb(DATABASE_URL, { poolMax: 1 });
await admin.raw('create schema ??', [schema]);
// One connection: the cost per turn reads its backend's CPU.
const db = createDb(DATABASE_URL, { poolMax: 1, searchPath: schema });
try {
  await db.migrate.latest({ directory: MIGRATIONS, loadExtensions: ['.ts'], schemaName: schema });
  process.stdout.write(`analytics bench (${load()})\n`);
  const { ids, stored } = await costPerTurn(db);
  await recordCost(db, ids);
  await concurrentWriters(ids, stored, schema);
  // The reads on a pool like the api's (DATABASE_POOL_MAX, default 10): a page's reads run at once.
  const pool = createDb(DATABASE_URL, { searchPath: schema });
  try {
    await seedHistory(db);
    await pageTimes(pool);
  } finally {
    await pool.destroy();
  }
} finally {
  await db.destroy();
  await admin.raw('drop schema ?? cascade', [schema]);
  await admin.destroy();
}
