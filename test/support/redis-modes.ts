/**
 * The Redis set-ups a suite runs against: the test Redis (one server) and a private loopback
 * Redis Cluster (three masters, three replicas). `forEachRedisMode` declares a suite once per
 * set-up; the cluster is started before the suite's first test and stopped after its last.
 *
 * `TEST_REDIS_MODES` picks the set-ups: `single`, `cluster`, or both (`single,cluster`, the
 * default), e.g. to run a suite against the cluster only while working on it.
 */
import { startPrivateCluster, type PrivateCluster } from './private-cluster.ts';
import { REDIS_URL } from './services.ts';

export interface RedisMode {
  /** `single node` or `cluster`, for the suite's title. */
  name: 'single node' | 'cluster';
  /** The URL of the Redis of this set-up; read it in a hook or a test, not at declaration. */
  url(): string;
  /** The cluster behind a `cluster` mode (started by then), for tests that reach its nodes. */
  cluster(): PrivateCluster | undefined;
}

const SELECTED = (process.env.TEST_REDIS_MODES ?? 'single,cluster').split(',').map((m) => m.trim());

/**
 * Declares `suite` once per selected Redis set-up, each in a `describe` titled
 * `<title> (<mode>)`.
 */
export function forEachRedisMode(
  title: string,
  suite: (this: Mocha.Suite, mode: RedisMode) => void,
): void {
  if (SELECTED.includes('single')) {
    describe(`${title} (single node)`, function () {
      suite.call(this, { name: 'single node', url: () => REDIS_URL, cluster: () => undefined });
    });
  }
  if (SELECTED.includes('cluster')) {
    describe(`${title} (cluster)`, function () {
      let cluster: PrivateCluster | undefined;
      before(async function () {
        this.timeout(120_000);
        cluster = await startPrivateCluster();
      });
      suite.call(this, {
        name: 'cluster',
        url: () => {
          if (!cluster) throw new Error('the private cluster is not started');
          return cluster.url;
        },
        cluster: () => cluster,
      });
      // Registered after the suite's own: mocha runs a describe's after hooks in order, and the
      // suite's (closing its components) need the cluster still up.
      after(async () => cluster?.close());
    });
  }
}
