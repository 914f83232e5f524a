/**
 * Partition leases held to a replica (`CONSUMER_LEASE_REPLICAS`) on a Redis without one: the
 * consumer says so at start, and no lease counts, so nothing is read until a replica is there.
 * (On a cluster, the woken master whose leases must not count: test/redis-cluster-failover.test.ts.)
 */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { busFixture, type BusFixture } from './support/bus.ts';
import { capturingLogger } from './support/logs.ts';
import { waitFor } from './support/services.ts';

interface IndexerMessage {
  collection_name: string;
  files: string[];
}

describe('partition leases held to a replica, on a Redis without one', () => {
  let bus: BusFixture<IndexerMessage>;

  beforeEach(() => {
    bus = busFixture<IndexerMessage>({ topic: 'indexer', partitions: 4 });
  });

  afterEach(async () => bus.close());

  it('when CONSUMER_LEASE_REPLICAS is 1, then the consumer warns at start, takes no partition and reads nothing; with 0 it reads at once', async () => {
    const { logger, lines } = capturingLogger({ component: 'test', level: 'warn' });
    const handled: string[] = [];
    const handler = async (m: IndexerMessage): Promise<void> => {
      handled.push(m.collection_name);
    };
    // A lease long enough that a round's four fenced takes (each waiting its 150 ms for a replica,
    // one after another on the lease connection) are over before the next round: with the
    // fixture's 300 ms the rounds overlap, every take but the first times out, and which error a
    // round logs first depends on the machine.
    const fenced = bus.consumer({
      name: 'fenced',
      leaseMs: 3000,
      leaseReplicas: 1,
      logger,
      handler,
    });
    await fenced.start();
    const warning = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(warning.map((w) => w.msg)).to.include(
      'masters with fewer replicas than CONSUMER_LEASE_REPLICAS: no lease on them counts, so their partitions are not read until a replica is back',
    );
    await bus.producer.publish('indexer', { collection_name: 'faq', files: ['a.pdf'] });
    // Until a round logged its refused takes (rounds every second), then one more round.
    await waitFor(() => lines.some((l) => l.includes('could not take partition leases')), {
      what: 'a lease round',
    });
    await sleep(1000);
    expect(fenced.partitions, 'partitions taken').to.deep.equal([]);
    expect(handled, 'handled').to.deep.equal([]);
    const refused = lines.map((l) => JSON.parse(l) as { msg: string; err?: { code?: string } });
    expect(
      refused.some(
        (l) =>
          l.msg.startsWith('could not take partition leases') &&
          l.err?.code === 'BW_ERR_NO_REPLICA',
      ),
      'a lease refused for want of a replica, logged',
    ).to.equal(true);
    await fenced.close();
    await bus.consumer({ name: 'plain', handler }).start();
    await waitFor(() => handled.length === 1, { what: 'the message handled without the fence' });
  });
});
