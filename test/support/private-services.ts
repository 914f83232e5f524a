/**
 * A Redis and a Postgres of a test's own, on free loopback ports with their data in a temporary
 * folder, so the test can stop, kill and restart them without disturbing anyone else. Always call
 * `close()` (in an `after` hook): it stops the server whatever state it is in and removes the
 * folder.
 */
import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomInt } from 'node:crypto';
import { createDb } from '../../src/shared/db.ts';
import { pgTool } from './pg-tools.ts';
import { start, type Running } from './run.ts';
import { waitFor } from './services.ts';

const exec = promisify(execFile);

/** Ports `freePort` handed out in this process. */
const handedOut = new Set<number>();

/**
 * A TCP port free on 127.0.0.1 right now, below the kernel's range of ephemeral ports, and never
 * one handed out before in this process. Below that range, because a port is listened on some
 * time after it is handed out (a component process takes seconds to start on a loaded machine),
 * and meanwhile any outgoing connection on the machine may be given a port of that range as its
 * own (a fault suite's api once failed to start with EADDRINUSE so). Never twice, because callers
 * that ask for several before binding any (a private cluster's twelve) must get them all apart.
 */
export async function freePort(): Promise<number> {
  const [low, high] = LISTEN_RANGE;
  for (;;) {
    const port = low + randomInt(high - low);
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
}

/** Ports `freePort` chooses from: from 10000 to the first ephemeral port (32768 when unknown). */
const LISTEN_RANGE = listenRange();

function listenRange(): [number, number] {
  let ephemeral = 32_768;
  try {
    ephemeral = Number(
      readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').split(/\s+/)[0],
    );
  } catch {
    // Not Linux: the range most systems start at.
  }
  return [10_000, Math.max(ephemeral, 10_001)];
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface PrivateRedis {
  url: string;
  port: number;
  /** Stops the server (SIGKILL by default) and waits for it to exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port and folder (its append-only file is read back). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A redis-server with an append-only file synced on every write (`appendfsync always`): a write
 * Redis acknowledged survives even SIGKILL. With `persistence: 'none'`, no append-only file: a
 * Redis kept only in memory (the benches).
 */
export async function startPrivateRedis(
  settings: { persistence?: 'always' | 'none' } = {},
): Promise<PrivateRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'botwire-redis-'));
  const port = await freePort();
  let server: Running | undefined;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    ...(settings.persistence === 'none'
      ? ['--appendonly', 'no']
      : ['--appendonly', 'yes', '--appendfsync', 'always']),
  ];
  const alive = () => server && server.child.exitCode === null && server.child.signalCode === null;
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop(signal = 'SIGKILL') {
      if (!server || !alive()) return;
      server.child.kill(signal);
      await server.exited;
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
        { timeoutMs: 15_000, what: 'the private redis-server to be ready' },
      );
    },
    async close() {
      await redis.stop('SIGKILL').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await redis.start();
  } catch (error) {
    await redis.close();
    throw error;
  }
  return redis;
}

export interface PrivatePostgres {
  /** URL of its `botwire` database. */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: open sessions are ended, the server shuts down cleanly. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Postgres refuses to run as root; as root, its tools run as the `postgres` user. */
function asPostgresUser(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0
    ? ['runuser', ['-u', 'postgres', '--', command, ...args]]
    : [command, args];
}

/** Runs a Postgres server program, found off PATH too (pg-tools.ts). */
async function runPgTool(tool: string, args: string[], timeoutMs = 60_000): Promise<void> {
  const [command, full] = asPostgresUser(pgTool(tool), args);
  await exec(command, full, { timeout: timeoutMs, cwd: '/' });
}

/**
 * A Postgres cluster of its own (initdb, fsync off) with a `botwire` database. Logins are trusted,
 * or, with `settings.password`, need that password for user `postgres` (scram-sha-256).
 */
export async function startPrivatePostgres(
  settings: { password?: string } = {},
): Promise<PrivatePostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'botwire-pg-'));
  const ids = process.getuid?.() === 0 ? await postgresIds() : undefined;
  if (ids) chownSync(dir, ...ids);
  const credentials = settings.password
    ? `postgres:${encodeURIComponent(settings.password)}`
    : 'postgres';
  const auth = ['-A', 'trust'];
  if (settings.password) {
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${settings.password}\n`, { mode: 0o600 });
    if (ids) chownSync(pwfile, ...ids);
    auth.splice(0, 2, '-A', 'scram-sha-256', `--pwfile=${pwfile}`);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  let started = false;
  const pg: PrivatePostgres = {
    url: `postgres://${credentials}@127.0.0.1:${port}/botwire`,
    port,
    async start() {
      await runPgTool('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
      started = true;
    },
    async stop() {
      await runPgTool('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
      started = false;
    },
    async close() {
      if (started) {
        await runPgTool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(
          () => undefined,
        );
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    await runPgTool('initdb', ['-D', data, '-U', 'postgres', ...auth, '--no-sync', '-E', 'UTF8']);
    await pg.start();
    const admin = createDb(`postgres://${credentials}@127.0.0.1:${port}/postgres`, {
      poolMax: 1,
    });
    try {
      await admin.raw('create database botwire');
    } finally {
      await admin.destroy();
    }
  } catch (error) {
    await pg.close();
    throw error;
  }
  return pg;
}

async function postgresIds(): Promise<[number, number]> {
  const { stdout: uid } = await exec('id', ['-u', 'postgres']);
  const { stdout: gid } = await exec('id', ['-g', 'postgres']);
  return [Number(uid.trim()), Number(gid.trim())];
}
