/**
 * The Postgres pool's limits (src/shared/db.ts, docs/operations.md "Postgres"): sessions carry the
 * component's name and the server-side limits from the settings; a statement over its limit is
 * cancelled, an idle transaction is ended, an unanswered connect fails, and in each case the pool
 * goes on serving.
 */
import { expect } from 'chai';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config.ts';
import { BotStore } from '../src/shared/bots/store.ts';
import { createDb, type Knex } from '../src/shared/db.ts';
import { openDb } from '../src/shared/worker-kit.ts';
import { capturingLogger } from './support/logs.ts';
import { createTestSchema, DATABASE_URL } from './support/services.ts';

/** What the server says of the session running this statement. */
async function session(db: Knex): Promise<{ name: string; statement: string; idle: string }> {
  const { rows } = await db.raw<{ rows: { name: string; statement: string; idle: string }[] }>(
    `select application_name as name,
            current_setting('statement_timeout') as statement,
            current_setting('idle_in_transaction_session_timeout') as idle
     from pg_stat_activity where pid = pg_backend_pid()`,
  );
  const row = rows[0];
  if (!row) throw new Error('no row for this session in pg_stat_activity');
  return row;
}

/** The SQLSTATE of the error `work` fails with (fails the test when it succeeds). */
async function sqlState(work: Promise<unknown>): Promise<string | undefined> {
  try {
    await work;
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return expect.fail('expected the statement to fail');
}

describe('Postgres pool limits', function () {
  this.timeout(20_000);
  const pools: Knex[] = [];
  const open = (db: Knex): Knex => {
    pools.push(db);
    return db;
  };

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((db) => db.destroy()));
  });

  it('when a component opens its pool from the settings, then its sessions carry its name and the limits', async () => {
    const config = loadConfig({ DATABASE_URL });
    const { logger } = capturingLogger({ component: 'test' });
    const db = open(openDb({ config, name: 'botwire-flow', logger }));
    expect(await session(db)).to.deep.equal({
      name: 'botwire-flow',
      statement: '30s',
      idle: '1min',
    });
  });

  it('when the indexer overrides the statement limit, then its sessions get the indexer setting', async () => {
    const config = loadConfig({ DATABASE_URL, INDEXER_STATEMENT_TIMEOUT_MS: '0' });
    const { logger } = capturingLogger({ component: 'test' });
    const unlimited = open(
      openDb(
        { config, name: 'botwire-indexer', logger },
        { statementTimeoutMs: config.knowledge.indexerStatementTimeoutMs },
      ),
    );
    expect(await session(unlimited)).to.include({ name: 'botwire-indexer', statement: '0' });
    const defaults = loadConfig({ DATABASE_URL });
    const tenMinutes = open(
      openDb(
        { config: defaults, name: 'botwire-indexer', logger },
        { statementTimeoutMs: defaults.knowledge.indexerStatementTimeoutMs },
      ),
    );
    expect(await session(tenMinutes)).to.include({ statement: '10min' });
  });

  it('when a statement runs past the limit, then the server cancels it (57014) and the pool goes on', async () => {
    const db = open(createDb(DATABASE_URL, { poolMax: 1, statementTimeoutMs: 200 }));
    const started = performance.now();
    expect(await sqlState(db.raw('select pg_sleep(5)'))).to.equal('57014');
    expect(performance.now() - started).to.be.below(4000);
    const { rows } = await db.raw<{ rows: { one: number }[] }>('select 1 as one');
    expect(rows).to.deep.equal([{ one: 1 }]);
  });

  it('when a transaction sits idle past the limit, then the server ends it, its lock is freed, the loss is logged, and the pool opens a new session', async () => {
    const { logger, lines } = capturingLogger({ component: 'test' });
    const db = open(
      createDb(DATABASE_URL, { poolMax: 1, idleInTransactionTimeoutMs: 200, logger }),
    );
    const other = open(createDb(DATABASE_URL, { poolMax: 1 }));
    const table = `bw_idle_${process.pid}_${Date.now()}`;
    await other.raw('create table ?? (id int primary key)', [table]);
    try {
      await other.raw('insert into ?? values (1)', [table]);
      const stuck = db.transaction(async (trx) => {
        await trx.raw('select id from ?? where id = 1 for update', [table]);
        await sleep(1000);
        await trx.raw('select 1');
      });
      const failure = await stuck.then(
        () => expect.fail('expected the transaction to fail'),
        (error: { code?: string; message: string }) => error,
      );
      // The server ends the session (25P03); node-postgres may report only the lost connection.
      expect(
        failure.code === '25P03' || /connection error/.test(failure.message),
        `${failure.code} ${failure.message}`,
      ).to.equal(true);
      // The row lock went with the session: another session takes it at once.
      await other.transaction(async (trx) => {
        await trx.raw("set local lock_timeout = '1s'");
        await trx.raw('select id from ?? where id = 1 for update', [table]);
      });
      expect(await session(db)).to.include({ idle: '200ms' });
      // Knex's own report of the lost connection is a log line, not console output.
      const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(parsed.map((line) => [line.module, line.msg])).to.deep.include([
        'knex',
        'postgres pool warning',
      ]);
    } finally {
      await other.raw('drop table ??', [table]);
    }
  });

  it("when a bot's delete cascades for longer than the statement limit, then it waits instead of failing", async () => {
    const schema = await createTestSchema();
    try {
      const limited = open(
        createDb(DATABASE_URL, { poolMax: 2, searchPath: schema.schema, statementTimeoutMs: 300 }),
      );
      const store = new BotStore({ db: limited, credentialsKey: randomBytes(32) });
      const bot = await store.createBot({
        name: 'long history',
        flow: {},
        channel: { type: 'telegram', details: { bot_token: '1:token' } },
      });
      await schema.db('users').insert({ pid: 'telegram:1', first_name: 'Ada', last_name: null });
      await schema.db('conversations').insert({
        app_id: bot.appId,
        channel_id: bot.channels[0]!.id,
        user_pid: 'telegram:1',
        chat_id: '1',
      });
      // A conversation locked by another session holds the cascade for longer than the limit,
      // as a history of millions of messages would.
      const holder = await schema.db.transaction();
      try {
        await holder('conversations').where({ app_id: bot.appId }).forUpdate();
        const deleting = store.deleteBot(bot.appId);
        await sleep(800);
        await holder.commit();
        expect(await deleting).to.equal(true);
      } finally {
        if (!holder.isCompleted()) await holder.rollback();
      }
      expect(await schema.db('conversations').where({ app_id: bot.appId })).to.have.length(0);
    } finally {
      await schema.drop();
    }
  });

  describe('a server that accepts and never answers', () => {
    let server: Server;
    const sockets: Socket[] = [];

    before(async () => {
      server = createServer((socket) => sockets.push(socket));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
    });

    after(async () => {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    });

    it('when a connection is opened, then it fails after the connect timeout, not the operating system one', async () => {
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('no port');
      const db = open(
        createDb(`postgres://postgres@127.0.0.1:${address.port}/nothing`, {
          poolMax: 1,
          connectTimeoutMs: 300,
          logger: capturingLogger({ component: 'test' }).logger,
        }),
      );
      const started = performance.now();
      const error = await db.raw('select 1').then(
        () => expect.fail('expected the connection to fail'),
        (reason: unknown) => reason as Error,
      );
      expect(error.message).to.match(/timeout/i);
      expect(performance.now() - started).to.be.below(5000);
      expect(sockets.length).to.be.at.least(1);
    });
  });
});
