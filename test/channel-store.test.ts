import { expect } from 'chai';
import type { Inbound } from '../src/channel/inbound.ts';
import {
  batchedRecords,
  recordInbound,
  recordOutbound,
  type OutboundRecord,
} from '../src/channel/store.ts';
import type { BotRecord, ChannelRecord } from '../src/shared/bots/types.ts';
import { createTestSchema, waitFor, withStatements, type TestSchema } from './support/services.ts';

describe('channel store: recording an inbound message', () => {
  let t: TestSchema;
  let bot: BotRecord;
  let channel: ChannelRecord;
  let sequence = 0;

  const inbound = (names: { firstName?: string; lastName?: string } = {}): Inbound => {
    sequence += 1;
    return {
      userId: '42',
      chatId: '42',
      ...names,
      platformMessageId: `42:${sequence}`,
      message: { message_type: 'text', text: `hello ${sequence}` },
    };
  };
  // xmin is the transaction that wrote the row version: unchanged means not rewritten.
  const versions = async (): Promise<{
    user: { xmin: string; first_name: string | null };
    conversation: { xmin: string; id: string };
  }> => ({
    user: await t.db('users').where({ pid: 'telegram:42' }).first('xmin', 'first_name'),
    conversation: await t
      .db('conversations')
      .where({ channel_id: channel.id, chat_id: '42' })
      .first('xmin', 'id'),
  });

  before(async () => {
    t = await createTestSchema();
    await t.db('bots').insert({ app_id: 'b1', name: 'b', flow: {} });
    const [row] = await t
      .db('channels')
      .insert({ app_id: 'b1', type: 'telegram', credentials: 'sealed' })
      .returning('id');
    channel = {
      id: row.id,
      appId: 'b1',
      type: 'telegram',
      externalId: null,
      secrets: { type: 'telegram', details: { bot_token: 'x' }, secret_token: 's' },
      webhookRegisteredAt: null,
      createdAt: new Date(),
    };
    bot = {
      appId: 'b1',
      name: 'b',
      flow: {},
      language: 'en',
      active: true,
      createdAt: new Date(),
      updatedAt: new Date(),
      channels: [channel],
    };
  });

  after(async () => t?.drop());

  it('when a known user writes again within a minute, then neither the user nor the conversation is rewritten; a new name or an hour-old conversation is', async () => {
    const first = await recordInbound(t.db, {
      bot,
      channel,
      inbound: inbound({ firstName: 'Ana' }),
      turnId: 't1',
    });
    expect(first.fresh).to.equal(true);
    const before = await versions();
    expect(before.conversation.id).to.equal(first.conversation.conversation_id);

    const second = await recordInbound(t.db, {
      bot,
      channel,
      inbound: inbound({ firstName: 'Ana' }),
      turnId: 't2',
    });
    expect({ ...second, written: undefined }).to.deep.equal({ ...first, written: undefined });
    // Each call wrote its own transcript row, and says which.
    expect(second.written!.messageId).to.not.equal(first.written!.messageId);
    expect(await versions()).to.deep.equal(before);
    expect(
      await t.db('messages').where({ conversation_id: before.conversation.id }).count('* as n'),
    ).to.deep.equal([{ n: '2' }]);

    // A message without a name keeps the one known.
    await recordInbound(t.db, { bot, channel, inbound: inbound(), turnId: 't3' });
    expect(await versions()).to.deep.equal(before);

    await recordInbound(t.db, {
      bot,
      channel,
      inbound: inbound({ firstName: 'Ana Maria' }),
      turnId: 't4',
    });
    const renamed = await versions();
    expect(renamed.user.first_name).to.equal('Ana Maria');
    expect(renamed.user.xmin).to.not.equal(before.user.xmin);
    expect(renamed.conversation).to.deep.equal(before.conversation);

    await t
      .db('conversations')
      .where({ id: before.conversation.id })
      .update({ last_message_at: t.db.raw(`now() - interval '1 hour'`) });
    await recordInbound(t.db, { bot, channel, inbound: inbound(), turnId: 't5' });
    const touched = await t
      .db('conversations')
      .where({ id: before.conversation.id })
      .first(t.db.raw(`last_message_at > now() - interval '1 minute' as recent`));
    expect(touched).to.deep.equal({ recent: true });
  });

  it('when the same platform message is recorded again, then under its own turn it is fresh, under another it is a platform redelivery', async () => {
    const message = inbound();
    const again = { bot, channel, inbound: message };
    const first = await recordInbound(t.db, { ...again, turnId: 'r1' });
    expect(first.fresh).to.equal(true);
    const redelivered = await recordInbound(t.db, { ...again, turnId: 'r1' });
    expect(redelivered.fresh).to.equal(true);
    expect((await recordInbound(t.db, { ...again, turnId: 'r2' })).fresh).to.equal(false);
    // Only the call that wrote the row says so: its live event is published once.
    expect(first.written?.messageId).to.match(/^\d+$/);
    expect(redelivered.written).to.equal(undefined);
  });

  it('when messages arrive in the same turn of the event loop, then one statement records them all, one user writing to two bots included', async () => {
    const [second] = await t
      .db('channels')
      .insert({ app_id: 'b1', type: 'telegram', credentials: 'sealed' })
      .returning('id');
    const other: ChannelRecord = { ...channel, id: second.id };
    const record = batchedRecords(t.db).recordInbound;
    const message = (userId: string, firstName: string): Inbound => ({
      ...inbound({ firstName }),
      userId,
      chatId: userId,
    });
    const { result: results, statements } = await withStatements(t.db, () =>
      Promise.all([
        record({ bot, channel, inbound: message('7', 'Old'), turnId: 'g1' }),
        record({ bot, channel: other, inbound: message('7', 'New'), turnId: 'g2' }),
        record({ bot, channel, inbound: message('8', 'Eve'), turnId: 'g3' }),
      ]),
    );
    expect(statements).to.have.length(1);
    expect(results.map((r) => r.fresh)).to.deep.equal([true, true, true]);
    expect(new Set(results.map((r) => r.conversation.conversation_id)).size).to.equal(3);
    expect(results.map((r) => r.conversation.user_pid)).to.deep.equal([
      'telegram:7',
      'telegram:7',
      'telegram:8',
    ]);
    // The user was written once, with the names of the newest of their messages.
    expect(await t.db('users').where({ pid: 'telegram:7' }).first('first_name')).to.deep.equal({
      first_name: 'New',
    });
    const logged = await t
      .db('messages')
      .whereIn('turn_id', ['g1', 'g2', 'g3'])
      .orderBy('turn_id')
      .select('turn_id', 'conversation_id');
    expect(logged).to.deep.equal(
      results.map((r, i) => ({
        turn_id: `g${i + 1}`,
        conversation_id: r.conversation.conversation_id,
      })),
    );
  });

  it('when one batch holds one conversation twice, then its messages are recorded one by one, so a platform redelivery among them is seen', async () => {
    const record = batchedRecords(t.db).recordInbound;
    const message = (): Inbound => ({ ...inbound(), userId: '9', chatId: '9' });
    // A new conversation twice: both recorded, in one conversation.
    const created = await Promise.all([
      record({ bot, channel, inbound: message(), turnId: 'd1' }),
      record({ bot, channel, inbound: message(), turnId: 'd2' }),
    ]);
    expect(created.map((r) => r.fresh)).to.deep.equal([true, true]);
    expect(created[0].conversation.conversation_id).to.equal(
      created[1].conversation.conversation_id,
    );
    // The same platform message under two turns of a conversation written within the minute:
    // one statement could not see its own first insert; one by one, the second is a redelivery.
    const again = message();
    const { result: twice, statements } = await withStatements(t.db, () =>
      Promise.all([
        record({ bot, channel, inbound: again, turnId: 'x1' }),
        record({ bot, channel, inbound: again, turnId: 'x2' }),
      ]),
    );
    expect(statements).to.have.length(2);
    expect(twice.map((r) => r.fresh)).to.deep.equal([true, false]);
    expect(
      await t.db('messages').whereIn('turn_id', ['d1', 'd2', 'x1', 'x2']).count('* as n'),
    ).to.deep.equal([{ n: '3' }]);
  });

  it('when another process creates the conversation while the statement waits on it, then BW_ERR_STATE_CONFLICT, nothing is written, and a retry records the message there', async () => {
    await t.db('users').insert({ pid: 'telegram:77', first_name: 'Ada', last_name: null });
    const message: Inbound = { ...inbound(), userId: '77', chatId: '77' };
    // Another process's transaction has created the conversation and not committed yet.
    const other = await t.db.transaction();
    let created: string;
    try {
      [{ id: created }] = await other('conversations')
        .insert({ app_id: 'b1', channel_id: channel.id, user_pid: 'telegram:77', chat_id: '77' })
        .returning('id');
      const recording = recordInbound(t.db, { bot, channel, inbound: message, turnId: 'c1' }).then(
        () => expect.fail('expected BW_ERR_STATE_CONFLICT'),
        (error: { code?: string }) => error.code,
      );
      // The statement is blocked on the uncommitted conversation before the other commits.
      const { rows: holding } = await other.raw<{ rows: { pid: number }[] }>(
        'select pg_backend_pid() as pid',
      );
      const holder = holding[0]!.pid;
      await waitFor(
        async () => {
          const { rows } = await t.db.raw<{ rows: unknown[] }>(
            'select 1 from pg_stat_activity where ? = any(pg_blocking_pids(pid))',
            [holder],
          );
          return rows.length > 0 || undefined;
        },
        { what: 'the inbound statement waiting on the conversation' },
      );
      await other.commit();
      expect(await recording).to.equal('BW_ERR_STATE_CONFLICT');
    } catch (error) {
      if (!other.isCompleted()) await other.rollback();
      throw error;
    }
    expect(
      await t.db('messages').where({ conversation_id: created }).count('* as n'),
    ).to.deep.equal([{ n: '0' }]);
    const retried = await recordInbound(t.db, { bot, channel, inbound: message, turnId: 'c1' });
    expect(retried.fresh).to.equal(true);
    expect(retried.conversation.conversation_id).to.equal(created);
    expect(
      await t.db('messages').where({ conversation_id: created }).count('* as n'),
    ).to.deep.equal([{ n: '1' }]);
  });

  it('when an inbound message, a look-up of recorded calls and a call that ended meet in one turn of the event loop, then one statement carries them all out; a failed call beside an inbound message goes second, in a statement of its own', async () => {
    const records = batchedRecords(t.db);
    const chat = (id: string): Inbound => ({ ...inbound(), userId: id, chatId: id });
    const { conversation } = await recordInbound(t.db, {
      bot,
      channel,
      inbound: chat('60'),
      turnId: 'k0',
    });
    const call = (turnId: string, seq: string, outcome: OutboundRecord['outcome']) => ({
      conversationId: conversation.conversation_id,
      turnId,
      seq,
      message: { message_type: 'text' as const, text: 'ok' },
      outcome,
      appId: 'b1',
      channelType: 'telegram',
      timed: true,
    });
    await recordOutbound(t.db, call('k0', '0.0', { status: 'sent', platformMessageId: '60:1' }));

    const { result, statements } = await withStatements(t.db, () =>
      Promise.all([
        records.recordInbound({ bot, channel, inbound: chat('61'), turnId: 'k1' }),
        records.recorded({ conversationId: conversation.conversation_id, turnId: 'k0' }),
        records.recordOutbound(call('k0', '1.0', { status: 'sent', platformMessageId: '60:2' })),
      ]),
    );
    expect(statements).to.have.length(1);
    const [fresh, seqs, written] = result;
    expect(fresh.fresh).to.equal(true);
    expect(fresh.conversation.chat_id).to.equal('61');
    expect([...seqs]).to.deep.equal(['0.0']);
    expect(written).to.equal(true);
    expect(
      await t
        .db('messages')
        .whereIn('turn_id', ['k0', 'k1'])
        .orderBy('id')
        .select('turn_id', 'direction', 'seq'),
    ).to.deep.equal([
      { turn_id: 'k0', direction: 'in', seq: null },
      { turn_id: 'k0', direction: 'out', seq: '0.0' },
      { turn_id: 'k1', direction: 'in', seq: null },
      { turn_id: 'k0', direction: 'out', seq: '1.0' },
    ]);

    // The user blocked the bot (403) as they wrote again, an hour after their last message: the
    // failure marks the conversation opted out, the message moves its last_message_at; one
    // statement may write the row once, so they go apart, and both land.
    await t
      .db('conversations')
      .where({ id: conversation.conversation_id })
      .update({ last_message_at: t.db.raw("now() - interval '1 hour'") });
    const { result: apart, statements: two } = await withStatements(t.db, () =>
      Promise.all([
        records.recordInbound({ bot, channel, inbound: chat('60'), turnId: 'k2' }),
        records.recordOutbound(
          call('k1', '0.0', { status: 'failed', error: 'blocked', code: '403' }),
        ),
      ]),
    );
    expect(two).to.have.length(2);
    expect(apart[0].fresh).to.equal(true);
    expect(apart[1]).to.equal(true);
    const row = await t
      .db('conversations')
      .where({ id: conversation.conversation_id })
      .first('opted_out_at', t.db.raw("last_message_at > now() - interval '1 minute' as moved"));
    expect(row.opted_out_at).to.be.an.instanceOf(Date);
    expect(row.moved).to.equal(true);
    expect(
      await t.db('messages').where({ turn_id: 'k2', direction: 'in' }).count('* as n'),
    ).to.deep.equal([{ n: '1' }]);

    // The first of the two fails (a channel deleted meanwhile: its message cannot be recorded):
    // nothing committed, so each is retried alone, and the call is recorded once, as new.
    const gone: ChannelRecord = { ...channel, id: '00000000-0000-4000-8000-000000000000' };
    const [lost, call2] = await Promise.allSettled([
      records.recordInbound({ bot, channel: gone, inbound: chat('62'), turnId: 'k3' }),
      records.recordOutbound(
        call('k2', '0.0', { status: 'failed', error: 'blocked', code: '403' }),
      ),
    ]);
    expect(lost.status).to.equal('rejected');
    expect(call2).to.deep.equal({ status: 'fulfilled', value: true });
  });
});
