/**
 * Fault: Redis stops and comes back from its append-only file (appendfsync always, so even a
 * SIGKILL keeps every write it acknowledged), under a steady stream of conversations. The test
 * runs a redis-server of its own so it can stop it; every component runs as its own process and
 * must reconnect by itself.
 */
import { expect } from 'chai';
import { startFaultSystem, type FaultSystem } from '../support/fault-system.ts';
import { expectDelivered, recordRow, startTraffic } from '../support/fault-traffic.ts';
import { startPrivateRedis, type PrivateRedis } from '../support/private-services.ts';
import { waitFor } from '../support/services.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('faults: Redis restarted from its append-only file', function () {
  this.timeout(240_000);
  let redis: PrivateRedis | undefined;
  let system: FaultSystem | undefined;

  before(async () => {
    redis = await startPrivateRedis();
    system = await startFaultSystem({ redisUrl: redis.url });
  });

  after(async () => {
    await system?.close();
    await redis?.close();
  });

  const signals: NodeJS.Signals[] = ['SIGKILL', 'SIGTERM'];
  signals.forEach((signal, index) => {
    it(`when Redis is stopped (${signal}) under a steady stream of conversations and restarted on its append-only file, then the edge answers 503 meanwhile, every component reconnects by itself, and nothing is lost, sent twice or reordered`, async () => {
      const sys = system!;
      const alive = [...sys.processes.values()].map((c) => c.proc.child.pid);
      const traffic = startTraffic(sys, { label: `redis-${signal}`, index });
      try {
        await waitFor(() => [...traffic.replies().values()].flat().length >= 6, {
          timeoutMs: 30_000,
          what: 'replies flowing before the fault',
        });
        await redis!.stop(signal);
        const ready = await fetch(`${sys.apiUrl}/readyz`);
        expect(ready.status).to.equal(503);
        await waitFor(() => (traffic.retries.get('503') ?? 0) > 0, {
          timeoutMs: 10_000,
          what: 'the edge to answer a callback 503',
        });
        await sleep(2000);
        await redis!.start();
        await waitFor(async () => (await fetch(`${sys.apiUrl}/readyz`)).status === 200, {
          timeoutMs: 20_000,
          intervalMs: 200,
          what: 'the edge to be ready again',
        });
        await sleep(2000);
        await traffic.stop();
      } finally {
        await traffic.stop(true).catch(() => undefined);
      }
      await traffic.settle();
      const row = traffic.measure(`Redis ${signal} and restart (AOF)`);
      recordRow(row);
      // Nobody restarted a component: the same processes are still running.
      expect([...sys.processes.values()].map((c) => c.proc.child.pid)).to.deep.equal(alive);
      for (const c of sys.processes.values()) expect(c.proc.child.exitCode, c.name).to.equal(null);
      expect(row.sent).to.be.greaterThan(10);
      await expectDelivered(sys, traffic, row);
    });
  });
});
