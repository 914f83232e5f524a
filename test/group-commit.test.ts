import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  batchedRecords,
  recordedOutbound,
  recordOutbound,
  type OutboundOutcome,
  type OutboundRecord,
} from '../src/channel/store.ts';
import { newConversation } from '../src/flow/engine/types.ts';
import { batchedSaveState, loadState, SAVE_BATCH } from '../src/flow/state-store.ts';
import { Batcher } from '../src/shared/batcher.ts';
import { startPrivatePostgres, type PrivatePostgres } from './support/private-services.ts';
import { createTestSchema, waitFor, withStatements, type TestSchema } from './support/services.ts';

/** A node of `explain (format json)`. */
interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

describe('group commit (Batcher): outbound records and their look-up, flow state writes', () => {
  let server: PrivatePostgres;
  let t: TestSchema;
  let conversationId = '';
  let channelId = '';

  before(async function () {
    this.timeout(60_000);
    // A Postgres of its own: the HOT update test below needs old row versions pruned, and any
    // transaction left open on the same server (a file running beside, in any database) holds
    // back what may be pruned, through the snapshots this test's own statements take.
    server = await startPrivatePostgres();
    t = await createTestSchema(server.url);
    await t.db('bots').insert({ app_id: 'b1', name: 'b', flow: {} });
    const [channel] = await t
      .db('channels')
      .insert({ app_id: 'b1', type: 'telegram', credentials: 'sealed' })
      .returning('id');
    await t.db('users').insert({ pid: 'telegram:1', first_name: null, last_name: null });
    const [conversation] = await t
      .db('conversations')
      .insert({ app_id: 'b1', channel_id: channel.id, user_pid: 'telegram:1', chat_id: '1' })
      .returning('id');
    conversationId = conversation.id;
    channelId = channel.id;
  });

  after(async () => {
    await t?.drop();
    await server?.close();
  });

  /** `count` conversations of b1, chats `<prefix>1`, `<prefix>2`..., each with a stored state. */
  const seedStates = async (
    prefix: string,
    count: number,
    row: { state?: unknown; version?: number; recentTurns?: string[]; outbox?: unknown } = {},
  ): Promise<string[]> => {
    const { state = {}, version = 1, recentTurns = [], outbox = null } = row;
    const { rows } = await t.db.raw(
      `with c as (
         insert into conversations (app_id, channel_id, user_pid, chat_id)
         select 'b1', ?, 'telegram:1', ?::text || i from generate_series(1, ?::int) i
         returning id)
       insert into conversation_state (conversation_id, app_id, state, version, recent_turns, outbox)
       select id, 'b1', ?::jsonb, ?, ?::jsonb, ?::jsonb from c
       returning conversation_id`,
      [
        channelId,
        prefix,
        count,
        JSON.stringify(state),
        version,
        JSON.stringify(recentTurns),
        JSON.stringify(outbox),
      ],
    );
    return rows.map((r: { conversation_id: string }) => r.conversation_id);
  };

  const message = { message_type: 'text' as const, text: 'hi' };
  /** A call of turn `turnId` in the test conversation, ended as `outcome`. */
  const ended = (turnId: string, seq: string, outcome: OutboundOutcome): OutboundRecord => ({
    conversationId,
    turnId,
    seq,
    message,
    outcome,
  });

  it('when calls end in the same turn of the event loop, then they are recorded by one statement and each caller resolves after it', async () => {
    const turn = { conversationId, turnId: 'turn-1' };
    const record = batchedRecords(t.db).recordOutbound;
    const { result: inserted, statements } = await withStatements(t.db, () =>
      Promise.all([
        record(ended('turn-1', '0.0', { status: 'sent', platformMessageId: '1:10' })),
        record(ended('turn-1', '1.0', { status: 'failed', error: '400: chat not found' })),
        record(ended('turn-1', '2.0', { status: 'sent', platformMessageId: '1:12' })),
      ]),
    );
    expect(inserted).to.deep.equal([true, true, true]);
    expect(statements.filter((sql) => /^(with|insert)\b/.test(sql))).to.have.length(1);
    const rows = await t
      .db('messages')
      .where({ conversation_id: conversationId, turn_id: 'turn-1', direction: 'out' })
      .orderBy('seq')
      .select('seq', 'status', 'platform_message_id', 'error');
    expect(rows).to.deep.equal([
      { seq: '0.0', status: 'sent', platform_message_id: '1:10', error: null },
      { seq: '1.0', status: 'failed', platform_message_id: null, error: '400: chat not found' },
      { seq: '2.0', status: 'sent', platform_message_id: '1:12', error: null },
    ]);
    // A redelivered turn finds all three recorded; recording one again changes nothing.
    expect([...(await recordedOutbound(t.db, turn))].sort()).to.deep.equal(['0.0', '1.0', '2.0']);
    expect(
      await recordOutbound(
        t.db,
        ended('turn-1', '0.0', { status: 'sent', platformMessageId: '1:99' }),
      ),
    ).to.equal(false);
    expect(
      await t.db('messages').where({ platform_message_id: '1:99' }).count('* as n').first(),
    ).to.deep.equal({ n: '0' });
  });

  it('when turns look up their recorded calls in the same turn of the event loop, then one statement answers them all, and a row left sending by an earlier release counts as not sent', async () => {
    await recordOutbound(t.db, ended('b', '0.0', { status: 'sent', platformMessageId: '1:20' }));
    // What a release that claimed rows before sending left when it died mid-call.
    await t.db('messages').insert({
      conversation_id: conversationId,
      direction: 'out',
      turn_id: 'c',
      seq: '0.0',
      message_type: 'text',
      body: message,
      status: 'sending',
    });
    const recorded = batchedRecords(t.db).recorded;
    const { result: found, statements } = await withStatements(t.db, () =>
      Promise.all(['a', 'b', 'c'].map((turnId) => recorded({ conversationId, turnId }))),
    );
    expect(statements.filter((sql) => sql.startsWith('select'))).to.have.length(1);
    expect(found.map((seqs) => [...seqs])).to.deep.equal([[], ['0.0'], []]);
    // The call is sent again and its outcome lands on the row left behind.
    expect(
      await recordOutbound(t.db, ended('c', '0.0', { status: 'sent', platformMessageId: '1:30' })),
    ).to.equal(true);
    const rows = await t
      .db('messages')
      .where({ conversation_id: conversationId, turn_id: 'c' })
      .select('status', 'platform_message_id');
    expect(rows).to.deep.equal([{ status: 'sent', platform_message_id: '1:30' }]);
  });

  it('when two turns write their states in one batch and one read a stale version, then only that one fails with BW_ERR_STATE_CONFLICT', async () => {
    const conversations = await seedStates('s', 2, {
      state: newConversation(),
      version: 3,
      recentTurns: ['t0'],
      outbox: [],
    });
    const save = batchedSaveState(t.db);
    const fresh = await loadState(t.db, conversations[0]!);
    const stale = { ...(await loadState(t.db, conversations[1]!)), version: 2 };
    const results = await Promise.allSettled([
      save({
        appId: 'b1',
        conversationId: conversations[0]!,
        previous: fresh,
        state: fresh.state,
        turnId: 't1',
        outbox: [],
      }),
      save({
        appId: 'b1',
        conversationId: conversations[1]!,
        previous: stale,
        state: stale.state,
        turnId: 't1',
        outbox: [],
      }),
    ]);
    expect(results[0].status).to.equal('fulfilled');
    expect((results[0] as PromiseFulfilledResult<{ version: number }>).value.version).to.equal(4);
    expect(results[1].status).to.equal('rejected');
    expect((results[1] as PromiseRejectedResult).reason.code).to.equal('BW_ERR_STATE_CONFLICT');
    expect(await loadState(t.db, conversations[0]!)).to.deep.include({
      version: 4,
      recentTurns: ['t0', 't1'],
    });
    expect(await loadState(t.db, conversations[1]!)).to.deep.include({
      version: 3,
      recentTurns: ['t0'],
    });
  });

  it('when a batch of state writes is planned, then it reads its rows by key, not the whole table, in the custom plan and the generic one', async () => {
    // A thousand conversations with a state: small enough that a plain join of the batch is
    // planned as a scan of every row (docs/pipeline.md, "What the design does for the cost"). Tables of a few pages (some
    // hundred rows) are still scanned, by either statement, which costs a handful of buffers.
    const [one] = await seedStates('plan-', 1000);
    await t.db.raw('analyze conversation_state');
    const batch = JSON.stringify([{ id: one, version: 1, state: {}, recent: [], outbox: null }]);
    /** The scans of `conversation_state` in the plan, by node type. */
    const scans = (node: PlanNode): string[] => [
      ...(node['Relation Name'] === 'conversation_state' ? [node['Node Type']] : []),
      ...(node.Plans ?? []).flatMap(scans),
    ];
    for (const mode of ['force_custom_plan', 'force_generic_plan']) {
      const plan = await t.db.transaction(async (trx) => {
        await trx.raw(`set local plan_cache_mode = ${mode}`);
        await trx.raw(`prepare plan_check as ${SAVE_BATCH.text}`);
        // EXPLAIN EXECUTE takes no bound parameters: the batch goes in as a literal, with no
        // analytics counts.
        const literal = `'${batch.replaceAll("'", "''")}'::jsonb`;
        const explained = await trx.raw(
          `explain (format json) execute plan_check(${literal}, '[]'::jsonb)`,
        );
        await trx.raw('deallocate plan_check');
        return explained.rows[0]['QUERY PLAN'][0].Plan as PlanNode;
      });
      expect(scans(plan), mode).to.not.include('Seq Scan');
      expect(scans(plan), mode).to.include('Index Scan');
    }
  });

  it('when every state is rewritten, then the new versions stay on their pages (HOT updates, no index entries)', async () => {
    // States of a realistic size: a few variables, the recent turn ids and an outbox.
    const state = { ...newConversation(), vars: { name: 'Ada', plan: 'basic', step: 3 } };
    const outbox = [{ message_type: 'text', text: 'x'.repeat(200) }];
    const ids = await seedStates('hot-', 300, {
      state,
      recentTurns: ['t1', 't2', 't3'],
      outbox,
    });
    // A HOT update keeps the row on its page; any other moves it and adds index entries. Old
    // versions are pruned only when no snapshot still sees them: a transaction left open on the
    // server would make every row move (the server is this file's alone).
    const pages = async () =>
      new Map<string, number>(
        (
          await t.db.raw(
            `select conversation_id as id, (ctid::text::point)[0]::int as page
             from conversation_state where conversation_id = any(?::uuid[])`,
            [ids],
          )
        ).rows.map((r: { id: string; page: number }) => [r.id, r.page]),
      );
    const before = await pages();
    // Two turns of every conversation, written as flow writes them (one batch each here).
    const save = batchedSaveState(t.db);
    for (let turn = 4; turn <= 5; turn++) {
      for (const id of before.keys()) {
        const previous = await loadState(t.db, id);
        await save({
          appId: 'b1',
          conversationId: id,
          previous,
          state: previous.state,
          turnId: `t${turn}`,
          outbox: previous.outbox,
        });
      }
    }
    const after = await pages();
    const moved = [...before].filter(([id, page]) => after.get(id) !== page).length;
    // Full pages (the default fillfactor) move about one row per page: 32 of 300 here.
    expect(moved, `${moved} of ${before.size} states moved`).to.be.at.most(0.02 * before.size);
  });

  it('when a batch fails, then each item is tried alone and only the bad one fails', async () => {
    const seen: number[][] = [];
    const batcher = new Batcher<number, number>(async (items) => {
      seen.push(items);
      if (items.includes(13)) throw new Error('unlucky');
      return items.map((n) => n * 2);
    });
    const results = await Promise.allSettled([1, 13, 3].map((n) => batcher.add(n)));
    expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[0] as PromiseFulfilledResult<number>).value).to.equal(2);
    expect(seen[0]).to.deep.equal([1, 13, 3]);
  });

  it('when calls arrive while a batch runs, then they wait for it and leave together as the next batch; with two in flight, the second batch does not wait', async () => {
    /** A batcher whose batches end only when the test says so (`inFlight` unset: the default). */
    const gated = (inFlight?: number) => {
      const seen: number[][] = [];
      const gates: (() => void)[] = [];
      const batcher = new Batcher<number, number>(
        (items) => {
          seen.push(items);
          return new Promise((resolve) => gates.push(() => resolve(items)));
        },
        100,
        inFlight,
      );
      return { batcher, seen, gates };
    };
    const tick = () => new Promise((resolve) => setImmediate(resolve));

    const one = gated();
    const first = one.batcher.add(1);
    await tick();
    const later = [2, 3].map((n) => one.batcher.add(n));
    await tick();
    await tick();
    expect(one.seen).to.deep.equal([[1]]);
    one.gates[0]!();
    expect(await first).to.equal(1);
    await tick();
    expect(one.seen).to.deep.equal([[1], [2, 3]]);
    one.gates[1]!();
    expect(await Promise.all(later)).to.deep.equal([2, 3]);

    const two = gated(2);
    void two.batcher.add(1);
    await tick();
    void two.batcher.add(2);
    await tick();
    expect(two.seen).to.deep.equal([[1], [2]]);
    two.gates.forEach((open) => open());
  });

  it('when a batch has not ended after stallMs, then the next batch goes ahead without it, and the stuck batch still answers its callers when it ends', async () => {
    const seen: number[][] = [];
    let unstick: () => void = () => {};
    const batcher = new Batcher<number, number>(
      (items) => {
        seen.push(items);
        if (items.includes(1)) return new Promise((resolve) => (unstick = () => resolve(items)));
        return Promise.resolve(items);
      },
      100,
      1,
      30,
    );
    const stuck = batcher.add(1);
    await new Promise((resolve) => setImmediate(resolve));
    const started = performance.now();
    expect(await batcher.add(2)).to.equal(2);
    expect(performance.now() - started).to.be.at.least(25);
    expect(seen).to.deep.equal([[1], [2]]);
    unstick();
    expect(await stuck).to.equal(1);
    // Its slot was given back once, not twice: two calls now still make one batch after another.
    seen.length = 0;
    await Promise.all([batcher.add(3), batcher.add(4)]);
    expect(seen).to.deep.equal([[3, 4]]);
  });

  it('when a batch fails and its items are retried one by one, then the next batch does not wait for the retries', async () => {
    const seen: number[][] = [];
    let retried: () => void = () => {};
    const batcher = new Batcher<number, number>(
      async (items) => {
        seen.push(items);
        if (items.length > 1) throw new Error('one of them is bad');
        if (items[0] === 1) await new Promise<void>((resolve) => (retried = resolve));
        return items;
      },
      100,
      1,
      60_000,
    );
    const first = Promise.all([batcher.add(1), batcher.add(2)]);
    await waitFor(() => seen.length === 2, { what: 'the first retry' });
    // A minute's stall allowance: only the early release lets it go now.
    const third = await Promise.race([batcher.add(3), sleep(500).then(() => 'waiting')]);
    expect(third).to.equal(3);
    expect(seen).to.deep.equal([[1, 2], [1], [3]]);
    retried();
    expect(await first).to.deep.equal([1, 2]);
  });
});
