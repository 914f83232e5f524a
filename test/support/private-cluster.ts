/**
 * A Redis Cluster of a test's own on loopback: three masters and three replicas of
 * `redis-server`, each on a free port with its data in a temporary folder. The nodes are joined
 * with plain commands (CLUSTER MEET, ADDSLOTSRANGE, REPLICATE), so no `redis-cli` is needed.
 * Always call `close()` (in an `after` hook): it kills every node and removes the folder.
 * With `tls`, every node speaks only TLS (clients, replication and the cluster bus) with a
 * certificate of a throwaway CA made with `openssl` in that folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis as RedisNode } from 'ioredis';
import { freePort } from './private-services.ts';
import { start, type Running } from './run.ts';
import { waitFor } from './services.ts';

export interface ClusterNodeProcess {
  port: number;
  /** Its cluster bus port (for the nodes' gossip). */
  busPort: number;
  /** The node's id in the cluster (CLUSTER MYID). */
  id: string;
  /** Stops the node (SIGKILL by default) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and folder (its nodes.conf and append-only file are read back). */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): it holds its sockets and answers nothing, replication included. */
  pause(): void;
  /** Lets a paused process run again (SIGCONT). */
  resume(): void;
}

export interface PrivateCluster {
  /**
   * `redis+cluster://` URL listing every node as a seed (with the password, when set);
   * `rediss+cluster://default:<password>@...` with `tls`.
   */
  url: string;
  /** With `tls`: the PEM file of the CA that signed the nodes' certificate (REDIS_TLS_CA). */
  caFile?: string;
  /** The masters first (each holding a third of the slots), then their replicas in the same order. */
  nodes: ClusterNodeProcess[];
  /** A plain single-node connection to node `i` (the caller closes it). */
  connectNode(i: number): RedisNode;
  close(): Promise<void>;
}

const MASTERS = 3;
const SLOTS = 16384;

/**
 * Starts and joins the cluster, resolving once every node reports `cluster_state:ok` and knows
 * all six nodes. With `password`, every node requires it (`requirepass`, and `masterauth` for
 * replication). Every node keeps an append-only file synced on every write (`appendfsync
 * always`), unless `persistence` is `none`: no append-only file, as a Redis kept only in memory
 * (the benches, to compare with a single server that keeps none).
 */
export async function startPrivateCluster(
  settings: { password?: string; persistence?: 'always' | 'none'; tls?: boolean } = {},
): Promise<PrivateCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'botwire-cluster-'));
  const certs = settings.tls ? makeCertificates(join(dir, 'tls')) : undefined;
  const tls = certs
    ? [
        '--tls-cert-file',
        certs.certFile,
        '--tls-key-file',
        certs.keyFile,
        '--tls-ca-cert-file',
        certs.caFile,
        // The servers check the clients' passwords, not certificates.
        '--tls-auth-clients',
        'no',
        '--tls-replication',
        'yes',
        '--tls-cluster',
        'yes',
      ]
    : [];
  const nodes: (ClusterNodeProcess & { alive(): boolean })[] = [];
  const auth = settings.password
    ? ['--requirepass', settings.password, '--masterauth', settings.password]
    : [];
  const persistence =
    settings.persistence === 'none'
      ? ['--appendonly', 'no']
      : ['--appendonly', 'yes', '--appendfsync', 'always'];
  const connectNode = (i: number): RedisNode =>
    new RedisNode({
      host: '127.0.0.1',
      port: nodes[i]!.port,
      ...(settings.password ? { password: settings.password } : {}),
      ...(certs ? { tls: { ca: readFileSync(certs.caFile) } } : {}),
      connectionName: 'botwire-test-cluster-admin',
      maxRetriesPerRequest: 1,
      retryStrategy: () => null,
    });
  const close = async () => {
    await Promise.all(nodes.map((n) => n.stop('SIGKILL').catch(() => undefined)));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < MASTERS * 2; i += 1) {
      nodes.push(await nodeProcess(join(dir, `n${i}`), [...persistence, ...auth], tls));
    }
    await Promise.all(nodes.map((n) => n.start()));
    const admins = nodes.map((_, i) => connectNode(i));
    try {
      for (const [i, node] of nodes.entries()) {
        node.id = String(await admins[i]!.call('CLUSTER', 'MYID'));
      }
      for (const admin of admins.slice(1)) {
        await admin.call('CLUSTER', 'MEET', '127.0.0.1', nodes[0]!.port, nodes[0]!.busPort);
      }
      for (let m = 0; m < MASTERS; m += 1) {
        const from = Math.floor((m * SLOTS) / MASTERS);
        const to = Math.floor(((m + 1) * SLOTS) / MASTERS) - 1;
        await admins[m]!.call('CLUSTER', 'ADDSLOTSRANGE', from, to);
      }
      // A replica can follow its master only once it has heard of it through the gossip.
      await waitFor(
        async () => {
          for (const admin of admins) {
            const known = String(await admin.call('CLUSTER', 'NODES'))
              .trim()
              .split('\n');
            if (known.length < nodes.length) return false;
          }
          return true;
        },
        { timeoutMs: 30_000, what: 'every cluster node to know the others' },
      );
      for (let r = 0; r < MASTERS; r += 1) {
        await admins[MASTERS + r]!.call('CLUSTER', 'REPLICATE', nodes[r]!.id);
      }
      await waitForHealthy(admins);
    } finally {
      for (const admin of admins) admin.disconnect();
    }
  } catch (error) {
    await close();
    throw error;
  }
  const user = certs ? 'default' : '';
  const credentials = settings.password ? `${user}:${encodeURIComponent(settings.password)}@` : '';
  const scheme = certs ? 'rediss+cluster' : 'redis+cluster';
  return {
    url: `${scheme}://${credentials}${nodes.map((n) => `127.0.0.1:${n.port}`).join(',')}`,
    ...(certs ? { caFile: certs.caFile } : {}),
    nodes,
    connectNode,
    close,
  };
}

/** Every node says the cluster is ok and every replica's link to its master is up. */
async function waitForHealthy(admins: RedisNode[]): Promise<void> {
  await waitFor(
    async () => {
      for (const admin of admins) {
        const info = String(await admin.call('CLUSTER', 'INFO'));
        if (!/cluster_state:ok/.test(info)) return false;
        if (!/cluster_slots_ok:16384/.test(info)) return false;
      }
      for (const admin of admins.slice(MASTERS)) {
        const replication = String(await admin.call('INFO', 'replication'));
        if (!/master_link_status:up/.test(replication)) return false;
      }
      return true;
    },
    { timeoutMs: 60_000, what: 'the private cluster to be healthy' },
  );
}

/**
 * A throwaway CA and one certificate for 127.0.0.1 and localhost signed by it (every node uses
 * the same), with `openssl`, in `dir`.
 */
function makeCertificates(dir: string): { caFile: string; certFile: string; keyFile: string } {
  mkdirSync(dir, { recursive: true });
  const at = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=botwire-test-ca',
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.crt'),
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    at('node.key'),
    '-out',
    at('node.csr'),
  );
  writeFileSync(at('node.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  openssl(
    'x509',
    '-req',
    '-days',
    '1',
    '-in',
    at('node.csr'),
    '-CA',
    at('ca.crt'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-extfile',
    at('node.ext'),
    '-out',
    at('node.crt'),
  );
  return { caFile: at('ca.crt'), certFile: at('node.crt'), keyFile: at('node.key') };
}

async function nodeProcess(
  dir: string,
  extra: string[],
  tls: string[] = [],
): Promise<ClusterNodeProcess & { alive(): boolean }> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  // The cluster bus port is named, not port + 10000, which may be taken or above 65535.
  const busPort = await freePort();
  // With TLS the node's one port is its TLS port; the plain one is closed.
  const ports =
    tls.length > 0 ? ['--port', '0', '--tls-port', String(port), ...tls] : ['--port', String(port)];
  const args = [
    ...ports,
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--cluster-enabled',
    'yes',
    '--cluster-config-file',
    join(dir, 'nodes.conf'),
    '--cluster-port',
    String(busPort),
    '--cluster-node-timeout',
    '2000',
    // A replica's first sync starts at once, not after Redis's default 5 s wait for more replicas
    // to share one transfer (each master here has one): the cluster is healthy 5 s sooner, and a
    // killed master back as a replica is in sync 5 s sooner.
    '--repl-diskless-sync-delay',
    '0',
    ...extra,
  ];
  let server: Running | undefined;
  const alive = () =>
    server !== undefined && server.child.exitCode === null && server.child.signalCode === null;
  const node = {
    port,
    busPort,
    id: '',
    alive,
    async stop(signal: NodeJS.Signals = 'SIGKILL') {
      if (!server || !alive()) return;
      server.child.kill(signal);
      await server.exited;
    },
    pause() {
      if (server && alive()) server.child.kill('SIGSTOP');
    },
    resume() {
      if (server && alive()) server.child.kill('SIGCONT');
    },
    async start() {
      const running = start('redis-server', args);
      server = running;
      await waitFor(
        () => {
          if (running.child.exitCode !== null) {
            throw new Error(`redis-server exited: ${running.stdout().slice(-1000)}`);
          }
          return /Ready to accept connections/.test(running.stdout());
        },
        { timeoutMs: 15_000, what: `cluster node on port ${port} to be ready` },
      );
    },
  };
  return node;
}

type LiveMaster = { id: string; index: number; slots: number[] };

/** The masters that are up, with their node index and the slots they serve, as node `i` sees them. */
async function mastersSeenBy(cluster: PrivateCluster, i: number): Promise<LiveMaster[]> {
  const node = cluster.connectNode(i);
  node.on('error', () => undefined);
  try {
    const lines = String(await node.call('CLUSTER', 'NODES'))
      .trim()
      .split('\n');
    const masters = [];
    for (const line of lines) {
      const [id, , flags, , , , , , ...ranges] = line.split(' ');
      // Flags as a list: `nofailover` is no failure.
      const flagList = flags?.split(',') ?? [];
      if (!flagList.includes('master') || flagList.includes('fail')) continue;
      const slots: number[] = [];
      for (const range of ranges) {
        if (range.startsWith('[')) continue;
        const [a, b = a] = range.split('-').map(Number);
        for (let s = a!; s <= b!; s += 1) slots.push(s);
      }
      const index = cluster.nodes.findIndex((n) => n.id === id);
      if (index >= 0) masters.push({ id: id!, index, slots });
    }
    return masters;
  } finally {
    node.disconnect();
  }
}

/** The masters that are up, with their node index and the slots they serve. */
export async function liveMasters(cluster: PrivateCluster): Promise<LiveMaster[]> {
  for (const [i] of cluster.nodes.entries()) {
    try {
      return await mastersSeenBy(cluster, i);
    } catch {
      // That node is down: ask the next.
    }
  }
  throw new Error('no cluster node answered');
}

/**
 * The index of the master serving `slot` once it is another than node `former` (frozen or down),
 * as a live node sees it: asked only of the other nodes, as a frozen one answers nothing. Waits up
 * to a minute for the failover.
 */
export async function waitForNewMaster(
  cluster: PrivateCluster,
  former: number,
  slot: number,
): Promise<number> {
  const asked = cluster.nodes.findIndex((_, i) => i !== former);
  const { index } = await waitFor(
    async () =>
      (await mastersSeenBy(cluster, asked)).find(
        (m) => m.index !== former && m.slots.includes(slot),
      ),
    { timeoutMs: 60_000, what: `a new master of slot ${slot}` },
  );
  return index;
}

/** The index of the node that replicates the master of id `masterId`. */
export async function replicaOf(cluster: PrivateCluster, masterId: string): Promise<number> {
  const node = cluster.connectNode(cluster.nodes.findIndex((n) => n.id === masterId));
  try {
    const lines = String(await node.call('CLUSTER', 'NODES'))
      .trim()
      .split('\n');
    for (const line of lines) {
      const [id, , flags, master] = line.split(' ');
      const flagList = flags?.split(',') ?? [];
      if (flagList.includes('slave') && master === masterId && !flagList.includes('fail')) {
        const index = cluster.nodes.findIndex((n) => n.id === id);
        if (index >= 0) return index;
      }
    }
  } finally {
    node.disconnect();
  }
  throw new Error(`no live replica of ${masterId}`);
}

/**
 * The index of a live replica of the master of id `masterId`, waiting up to a minute for one (after
 * a failover the former master rejoins as a replica only once it is back).
 */
export async function waitForReplica(cluster: PrivateCluster, masterId: string): Promise<number> {
  // Wrapped: the replica may be node 0, which `waitFor` would take for "not yet".
  const { index } = await waitFor(
    () =>
      replicaOf(cluster, masterId).then(
        (i) => ({ index: i }),
        () => undefined,
      ),
    { timeoutMs: 60_000, what: `a live replica of ${masterId}` },
  );
  return index;
}

/** `INFO replication` of node `i`. */
export async function offsetRole(cluster: PrivateCluster, i: number): Promise<string> {
  const node = cluster.connectNode(i);
  try {
    return String(await node.call('INFO', 'replication'));
  } finally {
    node.disconnect();
  }
}

/**
 * Moves `slot` from master `from` to master `to` as redis-cli's reshard does: IMPORTING and
 * MIGRATING, then its keys `batch` at a time with `MIGRATE` (a pause of `pauseMs` between
 * batches, so traffic meets the slot split between the two), then `SETSLOT NODE` on every
 * master. Returns the number of keys moved.
 */
export async function moveSlot(
  cluster: PrivateCluster,
  slot: number,
  from: { id: string; index: number },
  to: { id: string; index: number },
  { batch = 10, pauseMs = 20 } = {},
): Promise<number> {
  const source = cluster.connectNode(from.index);
  const target = cluster.connectNode(to.index);
  let moved = 0;
  try {
    await target.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', from.id);
    await source.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', to.id);
    for (;;) {
      const keys = (await source.call('CLUSTER', 'GETKEYSINSLOT', slot, batch)) as string[];
      if (keys.length === 0) break;
      await source.call(
        'MIGRATE',
        '127.0.0.1',
        cluster.nodes[to.index]!.port,
        '',
        0,
        5000,
        'KEYS',
        ...keys,
      );
      moved += keys.length;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    for (const master of await liveMasters(cluster)) {
      const node = cluster.connectNode(master.index);
      try {
        await node.call('CLUSTER', 'SETSLOT', slot, 'NODE', to.id);
      } finally {
        node.disconnect();
      }
    }
  } finally {
    source.disconnect();
    target.disconnect();
  }
  return moved;
}
