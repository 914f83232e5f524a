/**
 * The set-up every script that needs Redis or Postgres shares with run.sh (scripts/lib/common.sh
 * bw_setup): one clear line and exit 3 when a service cannot be made usable, the database created
 * when missing, an .env-dev with empty secrets completed; and test.sh <file>.
 */
import { expect } from 'chai';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createDb } from '../src/shared/db.ts';
import type { Redis } from '../src/shared/redis.ts';
import { startPrivateCluster, type PrivateCluster } from './support/private-cluster.ts';
import { startPrivatePostgres, type PrivatePostgres } from './support/private-services.ts';
import { run, type RunResult } from './support/run.ts';
import {
  connectRedis,
  DATABASE_URL,
  dropPrefix,
  REDIS_URL,
  ROOT,
  uniqueName,
  uniquePrefix,
  waitFor,
} from './support/services.ts';

/** Nothing listens there, and it is not "this machine" to the set-up, so nothing is started. */
const UNREACHABLE_HOST = '127.0.0.2';

/** The lines a failed run printed, without the set-up's progress lines. */
const errorLines = (result: RunResult): string[] =>
  result.stderr.split('\n').filter((line) => line.startsWith('error:'));

const expectOneClearLine = (result: RunResult, ...parts: string[]): void => {
  const lines = errorLines(result);
  expect(lines, result.stderr).to.have.length(1);
  for (const part of parts) expect(lines[0], result.stderr).to.contain(part);
  expect(lines[0]).to.contain('tried:');
  expect(lines[0]).to.contain('fix:');
  expect(result.stderr, 'no stack trace').not.to.match(/^\s+at /m);
};

describe('scripts set-up (bw_setup)', function () {
  this.timeout(120_000); // each run installs nothing but checks the services with Node

  const dir = mkdtempSync(join(tmpdir(), 'botwire-setup-'));
  /** No env file of the caller's: each test names its settings. */
  const base = { ENV_FILE: join(dir, 'none.env'), DATABASE_SCHEMA: '', BW_SETUP_DONE: '' };

  after(() => rmSync(dir, { recursive: true, force: true }));

  describe('upgrade-db.sh', () => {
    it('when Postgres is unreachable, then exit 3 with one line naming the URL (password masked), what was tried and the fix', async () => {
      const url = `postgres://postgres:hunter2-secret@${UNREACHABLE_HOST}:1/botwire`;
      const result = await run('./scripts/upgrade-db.sh', [], {
        env: { ...base, REDIS_URL, DATABASE_URL: url },
      });
      expect(result.code, result.stderr).to.equal(3);
      expectOneClearLine(
        result,
        `Postgres postgres://postgres:***@${UNREACHABLE_HOST}:1/botwire is unreachable (ECONNREFUSED)`,
        'DATABASE_URL',
      );
      expect(result.stderr).not.to.contain('hunter2-secret');
    });

    it('when a URL holds a password, then no process of the set-up shows it on its command line', async () => {
      // A server that accepts and never answers keeps the set-up's Postgres check waiting, so
      // its processes live long enough to be seen in the process list.
      const silent = createServer(() => undefined);
      await new Promise<void>((resolve) => silent.listen(0, UNREACHABLE_HOST, resolve));
      const { port } = silent.address() as AddressInfo;
      const secret = `pw-${uniqueName('ps')}`;
      const seen: string[] = [];
      let watching = true;
      const watcher = (async () => {
        while (watching) {
          const ps = await run('ps', ['-eo', 'args'], {});
          for (const line of ps.stdout.split('\n')) if (line.includes(secret)) seen.push(line);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      try {
        const result = await run('./scripts/upgrade-db.sh', [], {
          env: {
            ...base,
            REDIS_URL,
            DATABASE_URL: `postgres://postgres:${secret}@${UNREACHABLE_HOST}:${port}/botwire`,
          },
        });
        expect(result.code, result.stderr).to.equal(3);
        expect(result.stderr).not.to.contain(secret);
      } finally {
        watching = false;
        await watcher;
        silent.close();
      }
      expect(seen).to.deep.equal([]);
    });

    it('when Redis is unreachable, then exit 3 with one line naming its URL, what was tried and the fix', async () => {
      const result = await run('./scripts/upgrade-db.sh', [], {
        env: { ...base, REDIS_URL: `redis://${UNREACHABLE_HOST}:1`, DATABASE_URL },
      });
      expect(result.code, result.stderr).to.equal(3);
      expectOneClearLine(
        result,
        `Redis redis://${UNREACHABLE_HOST}:1 is unreachable (ECONNREFUSED)`,
        'REDIS_URL',
      );
    });

    it('when the database does not exist, then it is created and migrated, and exit 0', async () => {
      const database = uniqueName('bw_setup');
      const url = Object.assign(new URL(DATABASE_URL), { pathname: `/${database}` }).toString();
      const admin = createDb(DATABASE_URL, { poolMax: 1 });
      try {
        const result = await run('./scripts/upgrade-db.sh', [], {
          env: { ...base, REDIS_URL, DATABASE_URL: url },
        });
        expect(result.code, result.stderr).to.equal(0);
        expect(result.stderr).to.contain('creating the database');
        const db = createDb(url, { poolMax: 1 });
        try {
          const tables = (await db('information_schema.tables')
            .where({ table_schema: 'public', table_name: 'users' })
            .pluck('table_name')) as string[];
          expect(tables).to.deep.equal(['users']);
        } finally {
          await db.destroy();
        }
      } finally {
        await admin.raw('drop database if exists ?? with (force)', [database]);
        await admin.destroy();
      }
    });

    describe('against a Redis Cluster (REDIS_URL redis+cluster://)', () => {
      let cluster: PrivateCluster;

      before(async function () {
        this.timeout(120_000);
        cluster = await startPrivateCluster({ password: 'cluster-secret' });
      });

      after(async () => cluster?.close());

      it('when the cluster answers, then it is checked, not started, and the database is migrated: exit 0', async () => {
        const result = await run('./scripts/upgrade-db.sh', [], {
          env: { ...base, REDIS_URL: cluster.url, DATABASE_URL },
        });
        expect(result.code, result.stderr).to.equal(0);
        expect(result.stderr).to.contain('Redis Cluster redis+cluster://:***@127.0.0.1:');
        expect(result.stderr).not.to.contain('cluster-secret');
        // The local default is neither checked nor started in cluster mode.
        expect(result.stderr).not.to.contain('127.0.0.1:6379');
        expect(result.stderr).not.to.contain('starting redis-server');
      });

      it('when the password is wrong, then exit 3 with one line: the credentials were refused, what was tried, the fix', async () => {
        const result = await run('./scripts/upgrade-db.sh', [], {
          env: { ...base, REDIS_URL: cluster.url.replace('cluster-secret', 'wrong'), DATABASE_URL },
        });
        expect(result.code, result.stderr).to.equal(3);
        expectOneClearLine(
          result,
          'Redis Cluster redis+cluster://:***@',
          'refused the credentials',
        );
        expect(result.stderr).not.to.contain('wrong');
      });

      it('when its nodes answer but say cluster_state:fail (a master and its replica lost), then exit 3 with one line naming a node that says so, and nothing is started', async () => {
        // Master 0 and its replica (node 3) gone: a third of the slots has no one to serve it,
        // and every node left says so once it has marked them failed (node timeout 2 s).
        await cluster.nodes[0]!.stop();
        await cluster.nodes[3]!.stop();
        const left = [1, 2, 4, 5].map((i) => cluster.connectNode(i));
        try {
          await waitFor(
            async () => {
              for (const admin of left) {
                const info = String(await admin.call('CLUSTER', 'INFO'));
                if (!/cluster_state:fail/.test(info)) return false;
              }
              return true;
            },
            { timeoutMs: 30_000, intervalMs: 200, what: 'every node left to say fail' },
          );
          const result = await run('./scripts/upgrade-db.sh', [], {
            env: { ...base, REDIS_URL: cluster.url, DATABASE_URL },
          });
          expect(result.code, result.stderr).to.equal(3);
          expectOneClearLine(
            result,
            'Redis Cluster redis+cluster://:***@',
            'answers but is not ok',
          );
          const leftPorts = [1, 2, 4, 5].map((i) => cluster.nodes[i]!.port);
          const named = /node 127\.0\.0\.1:(\d+) says cluster_state:fail/.exec(result.stderr);
          expect(leftPorts, result.stderr).to.include(Number(named?.[1]));
          expect(result.stderr).not.to.contain('starting redis-server');
          expect(result.stderr).not.to.contain('127.0.0.1:6379');
          expect(result.stderr).not.to.contain('cluster-secret');
        } finally {
          for (const admin of left) admin.disconnect();
          // The nodes come back from their nodes.conf; no later test needs the cluster whole.
          await cluster.nodes[0]!.start().catch(() => undefined);
          await cluster.nodes[3]!.start().catch(() => undefined);
        }
      });

      it('when no seed node answers, then exit 3 with one line, and nothing is started', async () => {
        const result = await run('./scripts/upgrade-db.sh', [], {
          env: {
            ...base,
            REDIS_URL: `redis+cluster://${UNREACHABLE_HOST}:1,${UNREACHABLE_HOST}:2`,
            DATABASE_URL,
          },
        });
        expect(result.code, result.stderr).to.equal(3);
        expectOneClearLine(
          result,
          `Redis Cluster redis+cluster://${UNREACHABLE_HOST}:1,${UNREACHABLE_HOST}:2 is unreachable`,
          'a cluster is never started here',
        );
        expect(result.stderr).not.to.contain('starting redis-server');
      });
    });

    describe('against a Postgres that checks passwords', () => {
      let pg: PrivatePostgres;

      before(async () => {
        pg = await startPrivatePostgres({ password: 'right-password' });
      });

      after(async () => {
        await pg?.close();
      });

      it('when the password is wrong, then exit 3 with one line: the login was rejected, what was tried, the fix', async () => {
        const url = Object.assign(new URL(pg.url), { password: 'wrong-password' }).toString();
        const result = await run('./scripts/upgrade-db.sh', [], {
          env: { ...base, REDIS_URL, DATABASE_URL: url },
        });
        expect(result.code, result.stderr).to.equal(3);
        expectOneClearLine(
          result,
          `Postgres postgres://postgres:***@127.0.0.1:${pg.port}/botwire rejected the login (28P01)`,
          'DATABASE_URL',
        );
        expect(result.stderr).not.to.contain('wrong-password');
      });
    });
  });

  describe('an .env-dev copied from the template', () => {
    let redis: Redis;
    let prefix: string;

    beforeEach(() => {
      redis = connectRedis();
      prefix = uniquePrefix();
    });

    afterEach(async () => {
      await dropPrefix(redis, prefix);
      redis.disconnect();
    });

    it('when its secrets are empty, then a script fills them with fresh values, says so, and a second run keeps them', async () => {
      const envDir = mkdtempSync(join(dir, 'env-'));
      const envFile = join(envDir, '.env-dev');
      copyFileSync(join(ROOT, '.env-dev.template'), envFile);
      const template = readFileSync(envFile, 'utf8');
      expect(template).to.match(/^ADMIN_API_KEY=$/m);
      expect(template).to.match(/^CREDENTIALS_KEY=$/m);
      const env = { ...base, ENV_FILE: envFile, REDIS_URL, STREAM_PREFIX: prefix };

      const first = await run('./scripts/create-topic.sh', ['indexer'], { env });
      expect(first.code, first.stderr).to.equal(0);
      expect(first.stderr).to.contain('ADMIN_API_KEY CREDENTIALS_KEY: filled with fresh random');
      const filled = readFileSync(envFile, 'utf8');
      const admin = /^ADMIN_API_KEY=([0-9a-f]{64})$/m.exec(filled)?.[1];
      const key = /^CREDENTIALS_KEY=(\S+)$/m.exec(filled)?.[1];
      expect(admin, filled).to.be.a('string');
      expect(Buffer.from(key ?? '', 'base64')).to.have.length(32);
      expect(filled.split('\n')).to.have.length(template.split('\n').length);

      const second = await run('./scripts/create-topic.sh', ['indexer'], { env });
      expect(second.code, second.stderr).to.equal(0);
      expect(second.stderr).not.to.contain('filled');
      expect(readFileSync(envFile, 'utf8')).to.equal(filled);
    });

    it('when an env file of another name has empty secrets, then it is left as it is', async () => {
      const envFile = join(dir, '.env-prod');
      writeFileSync(envFile, 'ADMIN_API_KEY=\nCREDENTIALS_KEY=\n');
      const result = await run('./scripts/create-topic.sh', ['indexer'], {
        env: { ...base, ENV_FILE: envFile, REDIS_URL, STREAM_PREFIX: prefix },
      });
      expect(result.code, result.stderr).to.equal(0);
      expect(readFileSync(envFile, 'utf8')).to.equal('ADMIN_API_KEY=\nCREDENTIALS_KEY=\n');
    });
  });

  describe('test.sh', () => {
    it('when given one test file, then only that file runs and the closing line counts its tests', async () => {
      const result = await run('./scripts/test.sh', ['test/pg-tools.test.ts'], {
        timeoutMs: 110_000,
      });
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout).to.match(/^4 passed, 0 failed$/m);
      expect(result.stdout).to.contain('pgTool');
      expect(result.stdout).not.to.contain('topic scripts');
    });
  });
});
