// Reachability checks for scripts/lib/ensure-services.sh, needing only Node and the project.
// Usage: BW_PING_URL=<url> ping-services.ts redis | postgres | postgres-create-db
// (REDIS_TLS_CA, when set, is the CA file trusted for a rediss URL, as the components trust it)
// (the URL comes from the environment, not the command line, so its password never shows in `ps`)
// Exit codes: 0 ok, 1 other error or bad usage, 2 unreachable (refused / 3 s timeout),
// 3 database missing (Postgres 3D000), 4 authentication failed, 5 a Redis Cluster whose nodes
// answer but one of them does not say cluster_state:ok (slots uncovered, a master lost).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { maskUrl } from '../../src/shared/logger.ts';
import { isClusterUrl, parseRedisUrl, type RedisTarget } from '../../src/shared/redis.ts';

// The project has no @types/pg; this is the small part of pg used here.
interface PgClient {
  connect(): Promise<void>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
}
interface PgModule {
  Client: new (config: { connectionString: string; connectionTimeoutMillis: number }) => PgClient;
}
const pg = createRequire(import.meta.url)('pg') as PgModule;

const TIMEOUT_MS = 3000;
// Refused, timed out, no route or name, or Postgres still starting up (57P03).
const UNREACHABLE = new Set(
  'ECONNREFUSED ETIMEDOUT ECONNRESET EHOSTUNREACH ENETUNREACH ENOTFOUND EAI_AGAIN 57P03'.split(' '),
);

function fail(code: number, message: string): never {
  console.error(`ping-services: ${message}`);
  process.exit(code);
}

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : '';
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** TLS options: the CA of REDIS_TLS_CA when set, else the system's. */
function tlsOptions(): { ca?: Buffer } {
  const file = process.env.REDIS_TLS_CA;
  return file ? { ca: readFileSync(file) } : {};
}

/** A TLS handshake or certificate failure (Node's codes, or OpenSSL's words). */
function isTlsError(err: unknown): boolean {
  const code = errorCode(err);
  return (
    /^(ERR_TLS_|ERR_SSL_|SELF_SIGNED|DEPTH_ZERO|UNABLE_TO_|CERT_)/.test(code) ||
    /certificate|SSL routines/i.test(errorMessage(err))
  );
}

/** One try, no retries: a single server, or a cluster's seed nodes (redis+cluster://). */
function connectOnce(url: string): Redis | Cluster {
  const options = { connectTimeout: TIMEOUT_MS, maxRetriesPerRequest: 0 };
  if (!isClusterUrl(url)) {
    return new Redis(url, {
      ...options,
      ...(url.startsWith('rediss:') ? { tls: tlsOptions() } : {}),
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
  }
  const target = parseRedisUrl(url);
  return new Cluster(target.nodes, {
    lazyConnect: true,
    enableOfflineQueue: false,
    clusterRetryStrategy: () => null,
    redisOptions: nodeOptions(target),
  });
}

/** A cluster node's connection options: one try, the URL's user, password and TLS. */
function nodeOptions(target: RedisTarget): RedisOptions {
  return {
    connectTimeout: TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    ...(target.username ? { username: target.username } : {}),
    ...(target.password ? { password: target.password } : {}),
    ...(target.tls ? { tls: tlsOptions() } : {}),
  };
}

async function pingRedis(url: string): Promise<void> {
  let redis: Redis | Cluster;
  try {
    redis = connectOnce(url);
  } catch (err) {
    fail(1, `Redis ${maskUrl(url)}: ${errorMessage(err)}`);
  }
  // The socket error arrives as an event; connect() then only says "Connection is closed".
  let socketError: unknown;
  redis.on('error', (err: unknown) => (socketError ??= err));
  // A cluster node's own failure (a certificate not trusted, say) comes only as "node error".
  let tlsError: unknown;
  const noteTls = (err: unknown) => {
    if (isTlsError(err)) tlsError ??= err;
  };
  redis.on('error', noteTls);
  redis.on('node error', noteTls);
  let notOk: string | undefined;
  try {
    await redis.connect();
    await redis.ping();
    if (redis instanceof Cluster) notOk = await clusterNotOk(url);
  } catch (err) {
    // A cluster that could not be used names the last seed node's own failure.
    const cause =
      (socketError as { lastNodeError?: unknown } | undefined)?.lastNodeError ??
      (err as { lastNodeError?: unknown } | undefined)?.lastNodeError ??
      socketError ??
      err;
    const message = errorMessage(cause);
    // A cluster's slot lookup swallows its nodes' socket errors: ask one seed node by itself.
    if (tlsError === undefined && redis instanceof Cluster && parseRedisUrl(url).tls) {
      const target = parseRedisUrl(url);
      const probe = new Redis({
        ...target.nodes[0]!,
        ...nodeOptions(target),
        lazyConnect: true,
        enableOfflineQueue: false,
        retryStrategy: () => null,
      });
      probe.on('error', noteTls);
      await probe.connect().catch(() => undefined);
      probe.disconnect();
    }
    if (tlsError !== undefined || isTlsError(cause)) {
      fail(
        1,
        `Redis ${maskUrl(url)}: TLS failed (${errorMessage(tlsError ?? cause)}); a server certificate of a private CA needs that CA in REDIS_TLS_CA`,
      );
    }
    if (/^(NOAUTH|WRONGPASS)/.test(message))
      fail(4, `Redis ${maskUrl(url)}: authentication failed`);
    // A cluster none of whose seed nodes answered says so in its own words.
    const clusterDown = /Failed to refresh slots cache|None of startup nodes is available/;
    if (
      UNREACHABLE.has(errorCode(cause)) ||
      /^LOADING|Connection is closed/.test(message) ||
      clusterDown.test(message)
    ) {
      fail(2, `Redis ${maskUrl(url)} is unreachable (${errorCode(cause) || message})`);
    }
    fail(1, `Redis ${maskUrl(url)}: ${message}`);
  } finally {
    redis.disconnect();
  }
  if (notOk) fail(5, `Redis ${maskUrl(url)}: ${notOk}`);
}

/** A single-node connection of one try, with the URL's user, password and TLS. */
function nodeConnection(target: RedisTarget, node: { host: string; port: number }): Redis {
  const connection = new Redis({
    ...node,
    ...nodeOptions(target),
    lazyConnect: true,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  connection.on('error', () => undefined); // the command rejects too
  return connection;
}

/** CLUSTER NODES as the first seed node that answers tells it. */
async function clusterNodesOf(target: RedisTarget): Promise<string> {
  let last: unknown;
  for (const seed of target.nodes) {
    const connection = nodeConnection(target, seed);
    try {
      await connection.connect();
      return String(await connection.call('CLUSTER', 'NODES'));
    } catch (err) {
      last = err;
    } finally {
      connection.disconnect();
    }
  }
  throw last instanceof Error ? last : new Error('no seed node answered');
}

/**
 * Asks every node of the cluster (as CLUSTER NODES lists them, those known to have failed left
 * out) for CLUSTER INFO over a connection of its own: a PING answered by one node says nothing
 * of the slots the others serve. Returns the first node's complaint, if any: one that says the
 * cluster is not ok before one that does not answer (a node just lost may not be marked failed
 * yet, while the others already say why the cluster is down).
 */
async function clusterNotOk(url: string): Promise<string | undefined> {
  const target = parseRedisUrl(url);
  const lines = (await clusterNodesOf(target)).trim().split('\n');
  let unanswered: string | undefined;
  for (const line of lines) {
    const [, address = '', flags = ''] = line.split(' ');
    if (flags.split(',').some((f) => ['fail', 'noaddr', 'handshake'].includes(f))) continue;
    const hostPort = address.split('@')[0]!;
    const at = hostPort.lastIndexOf(':');
    const host = hostPort.slice(0, at).replace(/^\[(.*)\]$/, '$1');
    const node = nodeConnection(target, { host, port: Number(hostPort.slice(at + 1)) });
    try {
      await node.connect();
      const info = String(await node.call('CLUSTER', 'INFO'));
      const state = /cluster_state:(\w+)/.exec(info)?.[1] ?? 'unknown';
      if (state !== 'ok') {
        const slots = /cluster_slots_ok:(\d+)/.exec(info)?.[1] ?? '?';
        return `node ${hostPort} says cluster_state:${state} (${slots} of 16384 slots served)`;
      }
    } catch (err) {
      unanswered ??= `node ${hostPort} did not answer CLUSTER INFO (${errorCode(err) || errorMessage(err)})`;
    } finally {
      node.disconnect();
    }
  }
  return unanswered;
}

/** Connects with pg and runs `sql`, mapping connection failures to the exit codes above. */
async function withPostgres(url: string, sql: string, ignore: string[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: TIMEOUT_MS });
  client.on('error', () => undefined); // a dropped connection after connect; the query rejects too
  try {
    await client.connect();
    await client.query(sql);
  } catch (err) {
    const code = errorCode(err);
    if (ignore.includes(code)) return;
    const where = `Postgres ${maskUrl(url)}`;
    if (code === '3D000') fail(3, `${where}: database does not exist`);
    if (code === '28P01' || code === '28000') fail(4, `${where}: authentication failed (${code})`);
    if (UNREACHABLE.has(code) || /timeout|terminated/i.test(errorMessage(err))) {
      fail(2, `${where} is unreachable (${code || errorMessage(err)})`);
    }
    fail(1, `${where}: ${errorMessage(err)}${code ? ` (${code})` : ''}`);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function createDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) fail(1, `no database name in ${maskUrl(url)}`);
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  // Identifiers cannot be bound as parameters; double embedded quotes instead.
  const ident = `"${name.replace(/"/g, '""')}"`;
  await withPostgres(maintenance.toString(), `CREATE DATABASE ${ident}`, ['42P04']);
  console.error(`ping-services: database ${ident} ready`);
}

async function main(argv: string[]): Promise<void> {
  const [command] = argv;
  const url = process.env.BW_PING_URL;
  if (!url || !['redis', 'postgres', 'postgres-create-db'].includes(command ?? '')) {
    fail(1, 'usage: BW_PING_URL=<url> ping-services.ts redis|postgres|postgres-create-db');
  }
  try {
    if (command === 'redis') parseRedisUrl(url);
    else new URL(url);
  } catch {
    fail(1, `not a valid ${command} URL`);
  }
  // A last resort if a driver ignores its own timeout; unref so it never delays a clean exit.
  setTimeout(() => fail(2, `${maskUrl(url)}: no answer in time`), TIMEOUT_MS * 5).unref();
  if (command === 'redis') {
    // A cluster whose state is not ok fails ioredis's ready check, and with no retries its
    // connect() then never settles: the event loop empties, which would end the process with
    // exit 0. Say why instead, from the nodes' own CLUSTER INFO.
    process.once('beforeExit', () => {
      if (!isClusterUrl(url)) fail(2, `Redis ${maskUrl(url)}: no answer`);
      clusterNotOk(url).then(
        (notOk) => fail(5, `Redis ${maskUrl(url)}: ${notOk ?? 'node (any) never became ready'}`),
        (err: unknown) =>
          fail(2, `Redis ${maskUrl(url)} is unreachable (${errorCode(err) || errorMessage(err)})`),
      );
    });
    await pingRedis(url);
  } else if (command === 'postgres') await withPostgres(url, 'select 1');
  else await createDatabase(url);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (err: unknown) => fail(1, errorMessage(err)),
);
