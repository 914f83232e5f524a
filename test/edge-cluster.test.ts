/**
 * The edge on a Redis Cluster whose masters go away one at a time: a master without its replica
 * holds up no other bot, a bot's intake does not hang on the master holding its count, and a
 * callback whose partition has no master is answered 503 at once, then published once when the
 * platform sends it again. Masters are frozen (SIGSTOP) with failover switched off and the cluster
 * serving the slots it still can (`cluster-require-full-coverage no`), so a slot stays without a
 * master for as long as a test says, whatever the machine's load.
 */
import { expect } from 'chai';
import { botTurnsKey } from '../src/shared/bot-turns.ts';
import { partitionOf, topicKeys } from '../src/shared/bus/topics.ts';
import { chatOrderingKey } from '../src/shared/conversation-ref.ts';
import { startTestApi, whatsappPayload, type TestApi } from './support/api.ts';
import {
  liveMasters,
  replicaOf,
  startPrivateCluster,
  type PrivateCluster,
} from './support/private-cluster.ts';
import { waitFor } from './support/services.ts';

type Master = Awaited<ReturnType<typeof liveMasters>>[number];

describe('the edge on a Redis Cluster whose masters go away', function () {
  this.timeout(90_000);
  let cluster: PrivateCluster;
  let t: TestApi;
  let masters: Master[];
  let bots = 0;

  before(async function () {
    this.timeout(180_000);
    cluster = await startPrivateCluster();
    for (const i of cluster.nodes.keys()) {
      const node = cluster.connectNode(i);
      try {
        await node.call('CONFIG', 'SET', 'cluster-require-full-coverage', 'no');
        await node.call('CONFIG', 'SET', 'cluster-replica-no-failover', 'yes');
      } finally {
        node.disconnect();
      }
    }
    // Every master as every node sees it, before any is chosen.
    masters = (
      await waitFor(
        async () => {
          const found = await liveMasters(cluster);
          return found.length === 3 ? { found } : undefined;
        },
        { timeoutMs: 30_000, what: 'three live masters' },
      )
    ).found;
    t = await startTestApi({
      REDIS_URL: cluster.url,
      EDGE_WAIT_REPLICAS: '1',
      EDGE_WAIT_TIMEOUT_MS: '2000',
      EDGE_PUBLISH_WAIT_MS: '1000',
      LOG_LEVEL: 'debug',
    });
  });

  after(async () => {
    await t?.stop();
    await cluster?.close();
  });

  const partitions = () => t.config.stream.partitions;
  const slotOf = async (key: string) => Number(await t.redis.call('CLUSTER', 'KEYSLOT', key));
  const masterOf = async (key: string) => {
    const slot = await slotOf(key);
    return masters.find((m) => m.slots.includes(slot))!;
  };
  /** The partition stream of `channel` a chat of a bot goes to. */
  const streamOf = (appId: string, from: string) =>
    topicKeys(t.prefix, 'channel', partitions()).partitions[
      partitionOf(chatOrderingKey(appId, from), partitions())
    ]!;
  /** A user number of `appId` whose chat's partition lies on `master`, other than `not`. */
  const chatOn = async (appId: string, master: Master, not: string[] = []) => {
    for (let n = 0; ; n += 1) {
      const from = `1555000${1000 + n}`;
      if (!not.includes(from) && (await masterOf(streamOf(appId, from))).id === master.id) {
        return from;
      }
    }
  };
  /** A new WhatsApp bot whose turn count lies on `master` when given. */
  const whatsappBot = async (countOn?: Master) => {
    for (;;) {
      bots += 1;
      const number = `555010${bots}`;
      const created = await t.call('POST', '/v2/bots', {
        body: {
          name: `wa-${bots}`,
          channel: { type: 'whatsapp', details: { phone_number_id: number, access_token: 'x' } },
        },
      });
      expect(created.status).to.equal(201);
      const appId = String(created.json.app_id);
      if (!countOn || (await masterOf(botTurnsKey(t.prefix, appId))).id === countOn.id) {
        return { appId, number };
      }
    }
  };
  const send = (number: string, from: string, id: string) =>
    t.call('POST', '/callback', {
      auth: false,
      body: whatsappPayload(number, [{ id, body: 'hi', from }]),
    });
  const logged = (message: string) =>
    t.logs.filter((line) => (JSON.parse(line) as { msg?: string }).msg === message);
  /** Freezes nodes, runs `body`, and lets them run again whatever happens. */
  const frozen = async <T>(indexes: number[], body: () => Promise<T>): Promise<T> => {
    for (const i of indexes) cluster.nodes[i]!.pause();
    try {
      return await body();
    } finally {
      for (const i of indexes) cluster.nodes[i]!.resume();
    }
  };

  it("when a master's replica stops answering, then the replica waits of its callbacks hold up no other bot's callback whose count lies on that master", async () => {
    const [held, healthy] = [masters[0]!, masters[1]!];
    const a = await whatsappBot();
    const b = await whatsappBot(held);
    // One: the waits for one master queue behind each other on the wait connection.
    const aChats = [await chatOn(a.appId, held)];
    const bChat = await chatOn(b.appId, healthy);
    const replica = await replicaOf(cluster, held.id);
    const before = logged('bot backlog unread: callbacks taken uncounted').length;
    await frozen([replica], async () => {
      const finished: string[] = [];
      const waits = aChats.map((from, i) =>
        send(a.number, from, `wamid.wait-${i}`).then((answer) => {
          finished.push(`a${i}`);
          return answer;
        }),
      );
      // The replica waits are out (each holds its connection up to 2 s) before b's callback.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const other = await send(b.number, bChat, 'wamid.other');
      finished.push('b');
      expect(other.status).to.equal(200);
      const answers = await Promise.all(waits);
      expect(answers.map((r) => [r.status, r.json.error?.code])).to.deep.equal([
        [503, 'BW_ERR_NO_REPLICA'],
      ]);
      expect(finished[0]).to.equal('b');
    });
    // b's count was read and written on the master the waits were on: not skipped past its bound.
    expect(logged('bot backlog unread: callbacks taken uncounted').length).to.equal(before);
    expect(await t.redis.zcard(botTurnsKey(t.prefix, b.appId))).to.equal(1);
  });

  it("when the master holding a bot's count stops answering, then the bot's callbacks to a served partition are taken at once, uncounted", async () => {
    const [away, served] = [masters[1]!, masters[2]!];
    const bot = await whatsappBot(away);
    const from = await chatOn(bot.appId, served);
    const stream = streamOf(bot.appId, from);
    const length = await t.redis.xlen(stream);
    await frozen([away.index], async () => {
      const answer = await send(bot.number, from, 'wamid.uncounted');
      expect(answer.status).to.equal(200);
      expect(await t.redis.xlen(stream)).to.equal(length + 1);
    });
    expect(logged('bot backlog unread: callbacks taken uncounted').length).to.be.greaterThan(0);
  });

  it('when the master of a partition stops answering, then its callbacks are answered 503 within the bound with one warning line, and published once when sent again', async () => {
    const away = masters[2]!;
    const bot = await whatsappBot(masters[0]);
    const chats = [await chatOn(bot.appId, away)];
    chats.push(await chatOn(bot.appId, away, chats));
    const warnings = logged('refusing requests: Redis is unavailable').length;
    await frozen([away.index], async () => {
      const answers = await Promise.all(
        chats.map((from, i) => send(bot.number, from, `wamid.away-${i}`)),
      );
      expect(answers.map((r) => [r.status, r.json.error?.code])).to.deep.equal([
        [503, 'BW_ERR_UNAVAILABLE'],
        [503, 'BW_ERR_UNAVAILABLE'],
      ]);
    });
    // Two refusals, at most one line (none when the line of an earlier refusal is that recent).
    const lines = logged('refusing requests: Redis is unavailable');
    expect(lines.length - warnings).to.be.at.most(1);
    expect(lines.map((line) => JSON.parse(line) as { code: string; err?: unknown })).to.satisfy(
      (all: { code: string; err?: unknown }[]) =>
        all.some((l) => l.code === 'BW_ERR_UNAVAILABLE') && all.every((l) => !l.err),
    );
    // The platform sends them again: each is published once, whether or not the first landed.
    for (const [i, from] of chats.entries()) {
      expect((await send(bot.number, from, `wamid.away-${i}`)).status).to.equal(200);
    }
    const published: string[] = [];
    for (const key of new Set(chats.map((from) => streamOf(bot.appId, from)))) {
      for (const [, fields] of await t.redis.xrange(key, '-', '+')) {
        const data = fields[fields.indexOf('data') + 1]!;
        for (const i of chats.keys()) if (data.includes(`wamid.away-${i}`)) published.push(`${i}`);
      }
    }
    expect(published.sort()).to.deep.equal(['0', '1']);
  });
});
