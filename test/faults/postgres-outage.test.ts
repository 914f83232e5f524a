/**
 * Fault: Postgres stops for a while (pg_ctl stop -m fast) under a steady stream of conversations.
 * The test runs a Postgres cluster of its own so it can stop it; every component runs as its own
 * process. The edge needs no database on its hot path, so callbacks keep being accepted; admin
 * calls answer 503 with a stable code; once Postgres is back, the pipeline catches up.
 */
import { expect } from 'chai';
import { listDeadLetters } from '../../src/shared/bus/dead-letters.ts';
import { startFaultSystem, WORKERS, type FaultSystem } from '../support/fault-system.ts';
import { forEachRedisMode } from '../support/redis-modes.ts';
import { expectDelivered, recordRow, startTraffic } from '../support/fault-traffic.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../support/private-services.ts';
import { waitFor } from '../support/services.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long Postgres stays down: longer than a message's whole retry budget at these settings. */
const OUTAGE_MS = 6000;

forEachRedisMode('faults: Postgres stopped for a while', function (mode) {
  this.timeout(240_000);
  const where = mode.name === 'cluster' ? ' (Redis Cluster)' : '';
  let pg: PrivatePostgres | undefined;
  let system: FaultSystem | undefined;

  before(async function () {
    this.timeout(180_000);
    pg = await startPrivatePostgres();
    system = await startFaultSystem({
      redisUrl: mode.url(),
      databaseUrl: pg.url,
      // 100 + 200 ms of retries: an outage must not use up a message's deliveries.
      settings: { CONSUMER_MAX_DELIVERIES: '3' },
    });
  });

  after(async () => {
    await system?.close();
    await pg?.close();
  });

  it('when Postgres stops under a steady stream of conversations, then callbacks are still accepted, admin calls answer 503 BW_ERR_UNAVAILABLE, and once it is back every message is answered once and in order', async () => {
    const sys = system!;
    const traffic = startTraffic(sys, { label: 'postgres', index: 0 });
    const during: { status: number; code: unknown }[] = [];
    try {
      await waitFor(() => [...traffic.replies().values()].flat().length >= 6, {
        timeoutMs: 30_000,
        what: 'replies flowing before the fault',
      });
      await pg!.stop();
      const sentAtStop = traffic.conversations.reduce((n, c) => n + c.sent.length, 0);
      const until = Date.now() + OUTAGE_MS;
      while (Date.now() < until) {
        const answer = await sys.admin('GET', '/v2/bots');
        during.push({ status: answer.status, code: answer.json?.error?.code });
        await sleep(1000);
      }
      const sentDuring = traffic.conversations.reduce((n, c) => n + c.sent.length, 0) - sentAtStop;
      expect(sentDuring, 'callbacks accepted while Postgres was down').to.be.greaterThan(5);
      await pg!.start();
      await sleep(2000);
      await traffic.stop();
    } finally {
      await traffic.stop(true).catch(() => undefined);
    }
    await traffic.settle();
    const row = traffic.measure(`Postgres stopped ${OUTAGE_MS / 1000} s${where}`);
    recordRow(row);
    expect(during.length).to.be.greaterThan(2);
    for (const answer of during) {
      expect(answer).to.deep.equal({ status: 503, code: 'BW_ERR_UNAVAILABLE' });
    }
    const after = await sys.admin('GET', '/v2/bots');
    expect(after.status).to.equal(200);
    expect(row.retriedPosts, 'callbacks refused while Postgres was down').to.equal(0);
    for (const { topic } of WORKERS) {
      const dead = await listDeadLetters(
        sys.redis,
        sys.prefix,
        topic,
        Number(sys.env.TOPIC_PARTITIONS),
      );
      expect(dead.map((d) => d.reason).slice(0, 3), `${topic} dead letters`).to.deep.equal([]);
    }
    await expectDelivered(sys, traffic, row);
  });
});
