/**
 * A Redis in cluster mode named by a single server's URL (`redis://`): the api and every worker
 * refuse to start with BW_ERR_CONFIG naming `redis+cluster://`, where they would otherwise start
 * and then have every read of the partitions and every publish of the edge refused (CROSSSLOT).
 * The same cluster named `redis+cluster://` starts them.
 */
import { expect } from 'chai';
import { loadConfig } from '../src/config.ts';
import { BotwireError } from '../src/shared/errors.ts';
import { createLogger } from '../src/shared/logger.ts';
import { consume, createKit } from '../src/shared/worker-kit.ts';
import { startTestApi } from './support/api.ts';
import { startPrivateCluster, type PrivateCluster } from './support/private-cluster.ts';
import { uniquePrefix } from './support/services.ts';

describe('a Redis in cluster mode named as one server', function () {
  this.timeout(60_000);
  let cluster: PrivateCluster;
  // One of its masters, named as a single server.
  const oneServerUrl = () => `redis://127.0.0.1:${cluster.nodes[0]!.port}`;

  before(async function () {
    this.timeout(180_000);
    cluster = await startPrivateCluster({ persistence: 'none' });
  });

  after(async () => {
    await cluster?.close();
  });

  const refusal = (error: unknown) => {
    expect(error).to.be.instanceOf(BotwireError);
    expect((error as BotwireError).code).to.equal('BW_ERR_CONFIG');
    expect((error as BotwireError).message).to.include('redis+cluster://');
  };

  it('when the api is given its redis:// URL, then it refuses to start with BW_ERR_CONFIG, and starts with redis+cluster://', async () => {
    const error = await startTestApi({ REDIS_URL: oneServerUrl() }).then(
      async (api) => {
        await api.stop();
        return expect.fail('the api started');
      },
      (e: unknown) => e,
    );
    refusal(error);
    const api = await startTestApi({ REDIS_URL: cluster.url });
    await api.stop();
  });

  it('when a worker is given its redis:// URL, then it refuses to consume with BW_ERR_CONFIG, and consumes with redis+cluster://', async () => {
    const logger = createLogger({ component: 'indexer', level: 'silent' });
    const settings = { STREAM_PREFIX: uniquePrefix(), HEALTH_FILE: '' };
    const refused = createKit(loadConfig({ ...settings, REDIS_URL: oneServerUrl() }), logger, {
      name: 'botwire-test-indexer',
    });
    const error = await consume(refused, 'indexer', async () => undefined).then(
      () => expect.fail('the worker started'),
      (e: unknown) => e,
    );
    refusal(error);
    refused.redis.disconnect();

    const kit = createKit(loadConfig({ ...settings, REDIS_URL: cluster.url }), logger, {
      name: 'botwire-test-indexer',
    });
    const service = await consume(kit, 'indexer', async () => undefined);
    await service.close();
  });
});
