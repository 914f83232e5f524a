/**
 * EDGE_WAIT_REPLICAS: the edge's publish followed by Redis WAIT on the same node. Without a
 * replica in time the callback is refused (503, the platform sends it again) and stays written;
 * with one, it is published as always. The test Redis has no replica; the private cluster's
 * masters each have one.
 */
import { expect } from 'chai';
import { Producer, PRODUCER_SCRIPTS } from '../src/shared/bus/producer.ts';
import { topicKeys } from '../src/shared/bus/topics.ts';
import { BotwireError } from '../src/shared/errors.ts';
import { createRedis, type Redis } from '../src/shared/redis.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import { startTestApi, whatsappPayload } from './support/api.ts';
import { forEachRedisMode } from './support/redis-modes.ts';
import { dropPrefix, uniquePrefix } from './support/services.ts';

const PARTITIONS = 4;
const schemas = new SchemaRegistry();

/** A valid message of the indexer topic (any topic does: the producer treats them alike). */
const MESSAGE = { collection_name: 'faq', files: ['a.pdf'], ordering_key: 'k' };

async function entries(redis: Redis, prefix: string): Promise<number> {
  const keys = topicKeys(prefix, 'indexer', PARTITIONS);
  let total = 0;
  for (const stream of keys.partitions) total += await redis.xlen(stream);
  return total;
}

forEachRedisMode('publishing once and waiting for a replica', function (mode) {
  let redis: Redis;
  let prefix: string;
  let producer: Producer;

  beforeEach(() => {
    redis = createRedis(mode.url(), { name: 'botwire-test', scripts: PRODUCER_SCRIPTS });
    prefix = uniquePrefix();
    producer = new Producer({ redis, schemas, prefix, maxLen: 1000, partitions: PARTITIONS });
  });

  afterEach(async () => {
    await dropPrefix(redis, prefix);
    redis.disconnect();
  });

  it('when no replica is asked for, then a message is published once and its repeat is a duplicate', async () => {
    const [first] = await producer.publishOnce('indexer', [{ id: 'a', message: MESSAGE }], 60);
    const [again] = await producer.publishOnce('indexer', [{ id: 'a', message: MESSAGE }], 60, {
      replicas: 0,
      timeoutMs: 50,
    });
    expect(first).to.be.a('string');
    expect(again).to.equal(null);
    expect(await entries(redis, prefix)).to.equal(1);
  });

  it('when one replica is asked for, then the write is refused where none acknowledges, and published where one does', async () => {
    // A replica answers as soon as it has the write; the cluster's bound only caps a busy machine.
    const send = () =>
      producer.publishOnce('indexer', [{ id: 'b', message: MESSAGE }], 60, {
        replicas: 1,
        timeoutMs: mode.name === 'cluster' ? 5000 : 50,
      });
    if (mode.name === 'single node') {
      // No replica: refused, but written (a retry finds it seen, waits again, is refused again).
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const error = await send().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).to.be.instanceOf(BotwireError);
        expect((error as BotwireError).code).to.equal('BW_ERR_NO_REPLICA');
        expect((error as BotwireError).details).to.include({ acknowledged: 0, replicas: 1 });
      }
    } else {
      const [id] = await send();
      expect(id).to.be.a('string');
      expect(await send()).to.deep.equal([null]);
    }
    expect(await entries(redis, prefix)).to.equal(1);
  });
});

describe('the edge with EDGE_WAIT_REPLICAS', function () {
  this.timeout(30_000);

  it('when the edge must wait for a replica its Redis does not have, then a callback is answered 503 BW_ERR_NO_REPLICA and answered again 503 on its retry', async () => {
    const t = await startTestApi({ EDGE_WAIT_REPLICAS: '1', EDGE_WAIT_TIMEOUT_MS: '50' });
    try {
      const number = '5550077';
      const created = await t.call('POST', '/v2/bots', {
        body: {
          name: 'wa',
          channel: { type: 'whatsapp', details: { phone_number_id: number, access_token: 'x' } },
        },
      });
      expect(created.status).to.equal(201);
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const answer = await t.call('POST', '/callback', {
          auth: false,
          body: whatsappPayload(number, [{ id: 'wamid.wait', body: 'hi' }]),
        });
        expect(answer.status).to.equal(503);
        expect(answer.json.error.code).to.equal('BW_ERR_NO_REPLICA');
      }
    } finally {
      await t.stop();
    }
  });
});
