import { expect } from 'chai';
import { batchedFinishOutbound, claimOutbound } from '../src/channel/store.ts';
import { Batcher } from '../src/shared/batcher.ts';
import { createTestSchema, type TestSchema } from './support/services.ts';

describe('group commit (Batcher) of outbound call outcomes', () => {
  let t: TestSchema;
  let conversationId = '';

  before(async () => {
    t = await createTestSchema();
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
  });

  after(async () => t?.drop());

  it('when calls end in the same turn of the event loop, then their outcomes are written by one statement and each caller resolves after it', async () => {
    const message = { message_type: 'text' as const, text: 'hi' };
    const ids = await Promise.all(
      ['0.0', '1.0', '2.0'].map((seq) =>
        claimOutbound(t.db, { conversationId, turnId: 'turn-1', seq, message }),
      ),
    );
    const statements: string[] = [];
    const onQuery = (q: { sql: string }) => statements.push(q.sql);
    t.db.on('query', onQuery);
    const finish = batchedFinishOutbound(t.db);
    await Promise.all([
      finish(ids[0]!, { status: 'sent', platformMessageId: '1:10' }),
      finish(ids[1]!, { status: 'failed', error: '400: chat not found' }),
      finish(ids[2]!, { status: 'sent', platformMessageId: '1:12' }),
    ]);
    t.db.off('query', onQuery);
    expect(statements.filter((sql) => sql.startsWith('update'))).to.have.length(1);
    const rows = await t
      .db('messages')
      .whereIn('id', ids as string[])
      .orderBy('seq')
      .select('seq', 'status', 'platform_message_id', 'error');
    expect(rows).to.deep.equal([
      { seq: '0.0', status: 'sent', platform_message_id: '1:10', error: null },
      { seq: '1.0', status: 'failed', platform_message_id: null, error: '400: chat not found' },
      { seq: '2.0', status: 'sent', platform_message_id: '1:12', error: null },
    ]);
    // Claimed again (a redelivered turn): already finished, so not to be sent.
    expect(
      await claimOutbound(t.db, { conversationId, turnId: 'turn-1', seq: '0.0', message }),
    ).to.equal(undefined);
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
});
