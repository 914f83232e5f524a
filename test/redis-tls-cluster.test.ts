/**
 * A Redis Cluster over TLS (`rediss+cluster://`): three masters and three replicas of a private
 * cluster that speak only TLS, with a certificate of a throwaway CA trusted through REDIS_TLS_CA.
 * The connection the components make (createRedis with the config's CA) reaches every master,
 * runs scripts and reads a partition stream through its consumer group; a wrong password, or no
 * CA, fails with an error that says so.
 */
import { expect } from 'chai';
import { loadConfig } from '../src/config.ts';
import { groupOf, topicKeys } from '../src/shared/bus/topics.ts';
import { createRedis, isCluster, mastersOf, type Redis } from '../src/shared/redis.ts';
import { startPrivateCluster, type PrivateCluster } from './support/private-cluster.ts';
import { run } from './support/run.ts';
import { uniquePrefix, waitFor } from './support/services.ts';

const PASSWORD = 'tls-cluster-secret';

describe('Redis Cluster over TLS (rediss+cluster://, REDIS_TLS_CA)', function () {
  this.timeout(120_000);
  let cluster: PrivateCluster;
  let redis: Redis | undefined;

  before(async function () {
    this.timeout(180_000); // six nodes, each handshaking TLS with the others
    cluster = await startPrivateCluster({ password: PASSWORD, tls: true });
  });

  afterEach(() => {
    redis?.disconnect();
    redis = undefined;
  });

  after(async () => cluster?.close());

  /** The connection a component makes: its config's REDIS_URL and REDIS_TLS_CA. */
  const connect = (url: string, caFile: string): Redis => {
    const config = loadConfig(
      {
        REDIS_URL: url,
        REDIS_TLS_CA: caFile,
        CREDENTIALS_KEY: Buffer.alloc(32, 7).toString('base64'),
      },
      'channel',
    );
    return createRedis(config.redisUrl, {
      tlsCaFile: config.redisTlsCa,
      maxRetriesPerRequest: 1,
    });
  };

  it('when the URL has the password and the config the CA, then keys on every master, a script and a partition stream read by its group work over TLS', async () => {
    expect(cluster.url).to.match(/^rediss\+cluster:\/\/default:/);
    const connection = connect(cluster.url, cluster.caFile!);
    redis = connection;
    expect(isCluster(connection)).to.equal(true);
    const prefix = uniquePrefix();
    // Enough keys that every master holds some (a key's slot picks its master).
    const keys = Array.from({ length: 30 }, (_, i) => `${prefix}:k${i}`);
    for (const key of keys) await connection.set(key, `v-${key}`, 'EX', 60);
    for (const key of keys) expect(await connection.get(key)).to.equal(`v-${key}`);
    const masters = mastersOf(connection);
    expect(masters).to.have.length(3);
    for (const master of masters) {
      const held = await master.dbsize();
      expect(held, `${master.options.host}:${master.options.port}`).to.be.greaterThan(0);
    }
    // A script runs on the master of its key's slot.
    for (const key of keys.slice(0, 6)) {
      const got = await connection.eval(
        "return redis.call('GET', KEYS[1]) .. '|' .. ARGV[1]",
        1,
        key,
        'script',
      );
      expect(got).to.equal(`v-${key}|script`);
    }
    // A topic's partition streams (one slot each) through the component's consumer group.
    const { partitions } = topicKeys(prefix, 'flow', 3);
    for (const [p, stream] of partitions.entries()) {
      await connection.xgroup('CREATE', stream, groupOf('flow'), '0', 'MKSTREAM');
      await connection.xadd(stream, '*', 'data', `message ${p}`);
      const read = (await connection.xreadgroup(
        'GROUP',
        groupOf('flow'),
        'tls-test',
        'COUNT',
        10,
        'STREAMS',
        stream,
        '>',
      )) as [string, [string, string[]][]][];
      expect(read[0]![1].map(([, fields]) => fields[1])).to.deep.equal([`message ${p}`]);
    }
    for (const key of keys) await connection.del(key);
    for (const stream of partitions) await connection.del(stream);
  });

  it('when the password is wrong, then the connection fails naming the refused credentials, and the set-up check exits 4 saying so', async () => {
    const wrong = cluster.url.replace(PASSWORD, 'not-the-password');
    const connection = connect(wrong, cluster.caFile!);
    redis = connection;
    // The cluster connects by itself and reports each try: its own error, and each node's.
    const errors: Error[] = [];
    connection.on('error', (error: Error) => errors.push(error));
    connection.on('node error', (error: Error) => errors.push(error));
    await waitFor(() => errors.length > 0, { timeoutMs: 20_000, what: 'the refusal' });
    const seen = errors.map((e) => {
      const cause = (e as { lastNodeError?: Error } | undefined)?.lastNodeError ?? e;
      return String((cause as Error | undefined)?.message ?? cause);
    });
    expect(seen.join('\n')).to.match(/WRONGPASS/);

    const check = await run('node', ['--import', 'tsx', 'scripts/lib/ping-services.ts', 'redis'], {
      env: { BW_PING_URL: wrong, REDIS_TLS_CA: cluster.caFile! },
    });
    expect(check.code, check.stderr).to.equal(4);
    expect(check.stderr).to.contain('authentication failed');
    expect(check.stderr).not.to.contain('not-the-password');
  });

  it('when the CA is not trusted (no REDIS_TLS_CA), then the set-up check fails on the certificate, and with it passes', async () => {
    const without = await run(
      'node',
      ['--import', 'tsx', 'scripts/lib/ping-services.ts', 'redis'],
      { env: { BW_PING_URL: cluster.url, REDIS_TLS_CA: '' } },
    );
    expect(without.code, without.stderr).not.to.equal(0);
    expect(without.stderr, without.stderr).to.match(/TLS failed \(.*certificate/i);
    expect(without.stderr).to.contain('REDIS_TLS_CA');
    const withCa = await run('node', ['--import', 'tsx', 'scripts/lib/ping-services.ts', 'redis'], {
      env: { BW_PING_URL: cluster.url, REDIS_TLS_CA: cluster.caFile! },
    });
    expect(withCa.code, withCa.stderr).to.equal(0);
  });

  it('when REDIS_TLS_CA names no file, then the config says so by name', () => {
    expect(() =>
      loadConfig({ REDIS_URL: cluster.url, REDIS_TLS_CA: '/nonexistent/ca.pem' }, 'channel'),
    ).to.throw(/REDIS_TLS_CA cannot be read \(ENOENT/);
  });
});
