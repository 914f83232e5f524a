/**
 * BullMQ's connections, for every component that runs or adds jobs (the indexer's index jobs, the
 * conversation tests flow runs for the api).
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'bullmq';
import { createRedis, isClusterUrl } from './redis.ts';

/**
 * BullMQ's connection to `redisUrl` (trusting `tlsCaFile`'s CA for TLS, REDIS_TLS_CA). For one server, options: BullMQ opens (and closes) its own
 * connections. For a cluster, a Cluster client made like every other (seed nodes, password, TLS),
 * which BullMQ duplicates for its blocking reads; `close` closes it once BullMQ is done. Retries
 * are unbounded so a Redis restart or a failover does not fail jobs.
 */
export function jobsConnection(
  redisUrl: string,
  tlsCaFile = '',
  name = 'indexer-jobs',
): {
  connection: ConnectionOptions;
  close(): Promise<void>;
} {
  if (!isClusterUrl(redisUrl)) {
    const tls =
      tlsCaFile && redisUrl.startsWith('rediss:') ? { tls: { ca: readFileSync(tlsCaFile) } } : {};
    return {
      connection: { url: redisUrl, maxRetriesPerRequest: null, ...tls },
      close: async () => {},
    };
  }
  const cluster = createRedis(redisUrl, {
    name: `botwire-${name}`,
    tlsCaFile,
    maxRetriesPerRequest: null,
  });
  return {
    // BullMQ takes an ioredis client (its own Cluster duplicated for blocking reads).
    connection: cluster,
    close: async () => {
      await cluster.quit().catch(() => cluster.disconnect());
    },
  };
}
