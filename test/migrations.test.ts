/**
 * The migration scripts as an operator runs them: upgrade-db.sh on a fresh database of its own
 * (created here, dropped afterwards), knex rollback through the same CLI, and create-migration.sh.
 */
import { expect } from 'chai';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb, type Knex } from '../src/shared/db.ts';
import { run, type RunResult } from './support/run.ts';
import { DATABASE_URL, MIGRATIONS_DIR, ROOT, uniqueName } from './support/services.ts';

const CORE_TABLES = [
  'users',
  'bots',
  'channels',
  'conversations',
  'messages',
  'conversation_state',
];

describe('database migrations', () => {
  const database = uniqueName('bw_migrations');
  const url = Object.assign(new URL(DATABASE_URL), { pathname: `/${database}` }).toString();
  // No env file, and no DATABASE_SCHEMA from the caller's shell: the scripts see only this URL.
  const env = { DATABASE_URL: url, DATABASE_SCHEMA: '', ENV_FILE: '/nonexistent/.env-test' };
  let admin: Knex;
  let db: Knex;

  const upgrade = (): Promise<RunResult> => run('./scripts/upgrade-db.sh', [], { env });
  const rollbackAll = (): Promise<RunResult> =>
    run(
      'node',
      [
        '--import',
        'tsx',
        'node_modules/knex/bin/cli.js',
        '--knexfile',
        'knexfile.ts',
        'migrate:rollback',
        '--all',
      ],
      { env },
    );

  const presentTables = async (): Promise<string[]> => {
    const rows = await db('information_schema.tables')
      .where({ table_schema: 'public' })
      .whereIn('table_name', CORE_TABLES)
      .pluck('table_name');
    return (rows as string[]).sort();
  };

  before(async () => {
    admin = createDb(DATABASE_URL, { poolMax: 1 });
    await admin.raw('create database ??', [database]);
    db = createDb(url, { poolMax: 2 });
  });

  after(async () => {
    await db?.destroy();
    await admin?.raw('drop database if exists ?? with (force)', [database]);
    await admin?.destroy();
  });

  describe('upgrade-db.sh', () => {
    it('when run on an empty database, then it exits 0 and every core table exists', async () => {
      const result = await upgrade();
      expect(result.code, result.stderr).to.equal(0);
      expect(await presentTables()).to.deep.equal([...CORE_TABLES].sort());
    });

    it('when a user is inserted with only pid, first_name and last_name, then the row is stored with defaults', async () => {
      expect((await upgrade()).code).to.equal(0);
      await db('users').insert({ pid: 'u1', first_name: 'Ada', last_name: 'Lovelace' });
      const user = (await db('users').where({ pid: 'u1' }).first()) as Record<string, unknown>;
      expect(user).to.include({ pid: 'u1', first_name: 'Ada', last_name: 'Lovelace' });
      expect(user.profile).to.deep.equal({});
      expect(user.created_at).to.be.instanceOf(Date);
      await db('users').where({ pid: 'u1' }).delete();
    });

    it('when every migration is rolled back, then the tables are gone, and upgrade-db.sh brings them back', async () => {
      const first = await upgrade();
      expect(first.code, `already at the latest: ${first.stderr}`).to.equal(0);

      const rolledBack = await rollbackAll();
      expect(rolledBack.code, rolledBack.stderr).to.equal(0);
      expect(await presentTables()).to.deep.equal([]);

      const again = await upgrade();
      expect(again.code, again.stderr).to.equal(0);
      expect(await presentTables()).to.deep.equal([...CORE_TABLES].sort());
    });
  });

  describe('create-migration.sh', () => {
    /** What the script needs of the checkout, besides migrations/. */
    const LINKED = [
      'scripts',
      'src',
      'node_modules',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'knexfile.ts',
    ];

    it('when given a description, then migrations/<timestamp>_<snake_case>.ts is made from the stub', async () => {
      // In a project of its own (the scripts, sources and packages linked, an empty migrations/):
      // a migration made in this checkout's migrations/ would be run by other tests migrating
      // meanwhile, and would leave dist/ older than the folder, rebuilt under running processes.
      const project = mkdtempSync(join(tmpdir(), 'botwire-create-migration-'));
      for (const name of LINKED) symlinkSync(join(ROOT, name), join(project, name));
      const migrations = join(project, 'migrations');
      mkdirSync(migrations);
      try {
        const result = await run(join(project, 'scripts/create-migration.sh'), ['Add things'], {
          env: { ENV_FILE: '/nonexistent/.env-test' },
        });
        const created = readdirSync(migrations);
        expect(result.code, result.stderr).to.equal(0);
        expect(created).to.have.length(1);
        expect(created[0]).to.match(/^\d{14}_add_things\.ts$/);
        const text = readFileSync(join(migrations, created[0]!), 'utf8');
        expect(text).to.equal(readFileSync(join(ROOT, 'scripts/lib/migration-stub.ts'), 'utf8'));
        expect(text).to.contain('export async function up(knex: Knex): Promise<void>');
        expect(text).to.contain('export async function down(knex: Knex): Promise<void>');
      } finally {
        rmSync(project, { recursive: true, force: true });
      }
    });

    it('when the description has no letter or digit, then it exits non-zero and creates nothing', async () => {
      const before = readdirSync(MIGRATIONS_DIR).sort();
      const result = await run('./scripts/create-migration.sh', ['--- !'], {
        env: { ENV_FILE: '/nonexistent/.env-test' },
      });
      expect(result.code).to.not.equal(0);
      expect(result.stderr).to.contain('letter or digit');
      expect(readdirSync(MIGRATIONS_DIR).sort()).to.deep.equal(before);
    });
  });
});
