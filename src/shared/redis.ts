import { readFileSync } from 'node:fs';
import { followRedirects } from './redis-redirects.ts';
import { Cluster, Redis as RedisNode, type ClusterOptions, type RedisOptions } from 'ioredis';
import { BotwireError } from './errors.ts';

export type { RedisOptions } from 'ioredis';
export { Cluster, RedisNode };

/**
 * A connection to Redis: one server (`redis://`, `rediss://`) or a Redis Cluster
 * (`redis+cluster://`, `rediss+cluster://`). Both take the same commands; what differs
 * (duplicating, the nodes behind it) goes through the functions of this module.
 */
export type Redis = RedisNode | Cluster;

/** Options of {@link createRedis}: a single server's options, mapped onto a cluster's too. */
export type CreateRedisOptions = {
  /** Commands fail at once while Redis is down, see {@link createRedis}. @defaultValue false */
  failFast?: boolean;
  /** Connection name shown by CLIENT LIST (on every node of a cluster). */
  name?: string;
  /**
   * PEM file of the certificate authority trusted for a `rediss` URL (REDIS_TLS_CA), on every
   * node of a cluster; empty or absent: the system's trusted authorities.
   */
  tlsCaFile?: string;
} & RedisOptions;

/** A `REDIS_URL` taken apart. */
export interface RedisTarget {
  cluster: boolean;
  tls: boolean;
  username?: string;
  password?: string;
  /** Seed nodes of a cluster; the one server otherwise. */
  nodes: { host: string; port: number }[];
  /** Database number (single server only; a cluster has only database 0). */
  db?: number;
}

const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/?#]+)\/?(?:[?#].*)?$/;

function invalid(url: string, why: string): BotwireError {
  return new BotwireError('BW_ERR_CONFIG', `REDIS_URL is not a valid Redis URL: ${why}`, {
    details: { key: 'REDIS_URL', scheme: url.split(':', 1)[0] },
  });
}

/**
 * Parses a Redis URL: `redis[s]://[user:password@]host:port[/db]` for one server, or
 * `redis[s]+cluster://[user:password@]host:port[,host:port...]` for a cluster's seed nodes
 * (any few of its nodes; the client learns the rest from them).
 * @throws BotwireError `BW_ERR_CONFIG` naming what is wrong (never the password).
 */
export function parseRedisUrl(url: string): RedisTarget {
  const cluster = CLUSTER_URL.exec(url);
  if (cluster) {
    const [, scheme, user, password, hosts] = cluster;
    const nodes = hosts!.split(',').map((hostPort) => {
      const at = hostPort.lastIndexOf(':');
      const host = at > 0 ? hostPort.slice(0, at).replace(/^\[(.*)\]$/, '$1') : hostPort;
      const port = at > 0 ? Number(hostPort.slice(at + 1)) : 6379;
      if (host === '' || !Number.isInteger(port) || port < 1 || port > 65535) {
        throw invalid(url, `bad cluster node "${host}:${at > 0 ? hostPort.slice(at + 1) : ''}"`);
      }
      return { host, port };
    });
    return {
      cluster: true,
      tls: scheme === 'rediss',
      ...(user ? { username: decodeURIComponent(user) } : {}),
      ...(password ? { password: decodeURIComponent(password) } : {}),
      nodes,
    };
  }
  if (isClusterUrl(url)) {
    throw invalid(
      url,
      'a cluster is redis[s]+cluster://[user:password@]host:port[,host:port...], without a database number (a cluster has only database 0)',
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(url, 'unparseable');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw invalid(url, 'scheme must be redis, rediss, redis+cluster or rediss+cluster');
  }
  const db = parsed.pathname.replace(/^\//, '');
  return {
    cluster: false,
    tls: parsed.protocol === 'rediss:',
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    nodes: [
      { host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), port: Number(parsed.port || 6379) },
    ],
    ...(db ? { db: Number(db) } : {}),
  };
}

/** Whether a URL names a cluster (`redis+cluster://`, `rediss+cluster://`). */
export function isClusterUrl(url: string): boolean {
  return /^rediss?\+cluster:\/\//.test(url);
}

/**
 * Whether a connection is to a cluster. Narrows the type, for the few places that treat the two
 * apart (`duplicateRedis`, per-node work).
 */
export function isCluster(redis: Redis): redis is Cluster {
  return (redis as { isCluster?: boolean }).isCluster === true;
}

/**
 * Refuses a server in cluster mode named by a single server's URL (`redis://`), with
 * `BW_ERR_CONFIG`: taken for one server it would answer `CROSSSLOT` or `MOVED` to every command
 * and script whose keys span slots, as a consumer's read of its partitions and the edge's publish
 * do. A managed service's cluster-mode endpoint is named `redis+cluster://`. One `INFO cluster`,
 * at start.
 */
export async function refuseClusterAsOneServer(redis: Redis): Promise<void> {
  if (isCluster(redis)) return;
  if (!/^cluster_enabled:1\b/m.test(await redis.info('cluster'))) return;
  throw new BotwireError(
    'BW_ERR_CONFIG',
    'REDIS_URL names one server (redis://), but that server runs in cluster mode: name it redis+cluster://host:port[,host:port...] (docs/deployment.md, "Redis Cluster")',
  );
}

/**
 * Waits until the connection is ready (connected, and for a cluster its slots known), at most
 * `timeoutMs`. A connection that fails fast (no offline queue) refuses commands until then, so a
 * check made once at start waits for this first.
 * @returns whether it is ready.
 */
export function whenReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      redis.off('ready', onReady);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    redis.once('ready', onReady);
  });
}

// Options a Cluster takes itself; the rest are passed to the connection of each node.
const CLUSTER_LEVEL = [
  'enableOfflineQueue',
  'enableReadyCheck',
  'enableAutoPipelining',
  'autoPipeliningIgnoredCommands',
  'lazyConnect',
  'scripts',
  'keyPrefix',
  'showFriendlyErrorStack',
] as const;

/** Single-server options as a cluster's: the cluster's own at the top, the rest per node. */
function clusterOptionsOf(options: RedisOptions): ClusterOptions {
  const top: Record<string, unknown> = {};
  const perNode: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if ((CLUSTER_LEVEL as readonly string[]).includes(key)) top[key] = value;
    // A node's connection never retries by itself: the cluster finds the slots' new owners.
    else if (key !== 'retryStrategy') perNode[key] = value;
  }
  const scripts = (top.scripts ?? {}) as Record<string, unknown>;
  // A custom script on an auto-pipelined cluster connection is put in the pipeline of the node
  // its first argument (the key count) hashes to, not its first key's: sent with a command for
  // another node in the same tick, it fails that node's whole pipeline. Sent on its own it is
  // routed by its keys.
  if (top.enableAutoPipelining === true && Object.keys(scripts).length > 0) {
    const ignored = (top.autoPipeliningIgnoredCommands ?? []) as string[];
    top.autoPipeliningIgnoredCommands = [...new Set([...ignored, ...Object.keys(scripts)])];
  }
  return { ...top, redisOptions: perNode };
}

/**
 * Opens a Redis connection: one server, or a cluster for a `redis[s]+cluster://` URL. A
 * cluster's nodes get the URL's user, password and TLS (with `tlsCaFile`'s CA) like a single
 * server does.
 *
 * `failFast` is for request paths (the HTTP edge): commands fail at once while Redis is down
 * instead of queueing, so a caller can answer 503 and let the platform retry. Workers keep the
 * default: commands wait for the reconnect.
 * @throws BotwireError `BW_ERR_CONFIG` for a URL that cannot be parsed.
 */
export function createRedis(url: string, options: CreateRedisOptions = {}): Redis {
  const { failFast = false, name, tlsCaFile, ...rest } = options;
  const base: RedisOptions = {
    connectionName: name,
    ...(failFast ? { enableOfflineQueue: false, maxRetriesPerRequest: 1 } : {}),
    ...rest,
  };
  // The CA goes with the TLS options; a plain redis:// URL has none to trust.
  if (tlsCaFile && /^rediss(\+cluster)?:\/\//.test(url)) {
    base.tls = { ...(base.tls ?? {}), ca: readFileSync(tlsCaFile) };
  }
  if (!isClusterUrl(url)) return new RedisNode(url, base);
  const target = parseRedisUrl(url);
  const cluster = clusterOptionsOf({
    ...base,
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.tls ? { tls: { ...(base.tls ?? {}) } } : {}),
  });
  return followRedirects(new Cluster(target.nodes, cluster));
}

/**
 * A new connection like `redis` (same server or cluster, same options) with `overrides`: the
 * blocking and control connections of a consumer, a subscriber. On a cluster, the overrides go
 * where a cluster reads them (its own options or each node's).
 */
export function duplicateRedis(redis: Redis, overrides: RedisOptions = {}): Redis {
  if (!isCluster(redis)) return redis.duplicate(overrides);
  const mapped = clusterOptionsOf({
    // Recomputed from the merged options: an override may turn auto-pipelining off.
    ...(redis.options.redisOptions ?? {}),
    ...pick(redis.options, CLUSTER_LEVEL),
    ...overrides,
  });
  if (mapped.enableAutoPipelining !== true) mapped.autoPipeliningIgnoredCommands = [];
  return followRedirects(redis.duplicate(undefined, mapped));
}

function pick(object: object, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = (object as Record<string, unknown>)[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/**
 * The master connections of a cluster (one per master, as the client knows them now), or the
 * connection itself for a single server: for work that goes to every node (SCAN, INFO).
 */
export function mastersOf(redis: Redis): RedisNode[] {
  return isCluster(redis) ? redis.nodes('master') : [redis];
}

/**
 * SCANs every master (the server itself on a single one) for the keys matching `match`, handing
 * each batch found to `each` with the node that holds it. Waits for a cluster client to learn its
 * nodes first (before that it knows none).
 */
export async function scanEveryMaster(
  redis: Redis,
  match: string,
  each: (keys: string[], node: RedisNode) => Promise<void> | void,
): Promise<void> {
  if (isCluster(redis) && redis.status !== 'ready') await redis.ping();
  for (const node of mastersOf(redis)) {
    let cursor = '0';
    do {
      const [next, keys] = await node.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      if (keys.length > 0) await each(keys, node);
      cursor = next;
    } while (cursor !== '0');
  }
}

/**
 * Defines a Lua script as a command of `redis` after the connection was made (one made with the
 * `scripts` option needs none). On an auto-pipelined cluster connection the script is kept out of
 * the auto-pipeline, for the reason `createRedis` gives.
 */
export function defineScript(redis: Redis, name: string, definition: { lua: string }): void {
  redis.defineCommand(name, definition);
  if (isCluster(redis) && redis.options.enableAutoPipelining) {
    const ignored = redis.options.autoPipeliningIgnoredCommands ?? [];
    if (!ignored.includes(name)) redis.options.autoPipeliningIgnoredCommands = [...ignored, name];
  }
}
