/**
 * Audit retention (AUDIT_RETENTION_DAYS): rows past retention are deleted in batches, newer ones
 * kept; processes pruning at once share the work; 0 days keeps everything.
 */
import { expect } from 'chai';
import { loadConfig } from '../../src/config.ts';
import { pruneAudit } from '../../src/api/audit/store.ts';
import { RetentionPruner } from '../../src/api/retention-pruner.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { waitFor } from '../support/services.ts';

describe('audit log: retention', function () {
  this.timeout(30_000);
  let t: TestApi;
  const logger = createLogger({ component: 'test', level: 'silent' });

  before(async () => {
    t = await startTestApi();
  });

  after(async () => {
    await t?.stop();
  });

  beforeEach(async () => {
    await t.api.db('audit_log').delete();
  });

  /** `old` rows `ageDays` old and `fresh` rows of now. */
  async function fill(old: number, fresh: number, ageDays = 40): Promise<void> {
    const db = t.api.db;
    const rows = (n: number, at: unknown) =>
      Array.from({ length: n }, (_, i) => ({
        at,
        actor: 'admin-key',
        address: '127.0.0.1',
        action: 'bot.update',
        target_type: 'bot',
        target_id: String(i),
        summary: {},
      }));
    if (old > 0)
      await db('audit_log').insert(rows(old, db.raw(`now() - interval '${ageDays} days'`)));
    if (fresh > 0) await db('audit_log').insert(rows(fresh, db.fn.now()));
  }
  const left = async (): Promise<number> =>
    Number((await t.api.db('audit_log').count<{ count: string }[]>('* as count'))[0]!.count);

  it('when rows are older than the retention, then they are deleted in batches and newer rows stay', async () => {
    await fill(25, 5);
    expect(await pruneAudit(t.api.db, 30, 10)).to.equal(25);
    expect(await left()).to.equal(5);
    expect(await pruneAudit(t.api.db, 30, 10)).to.equal(0);
  });

  it('when the rows are younger than the retention, then nothing is deleted', async () => {
    await fill(10, 0, 20);
    expect(await pruneAudit(t.api.db, 30)).to.equal(0);
    expect(await left()).to.equal(10);
  });

  it('when three processes prune at once, then each old row is deleted exactly once', async () => {
    await fill(300, 7);
    const counts = await Promise.all([1, 2, 3].map(() => pruneAudit(t.api.db, 30, 7)));
    expect(counts.reduce((a, b) => a + b, 0)).to.equal(300);
    expect(await left()).to.equal(7);
  });

  it('when the pruner runs on its timer, then old rows go; with 0 days it never starts and they stay', async () => {
    await fill(4, 2);
    const keeper = new RetentionPruner({
      db: t.api.db,
      what: 'audit rows',
      prune: pruneAudit,
      retentionDays: 0,
      intervalMs: 20,
      logger,
    });
    keeper.start();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await keeper.stop();
    expect(await left()).to.equal(6);
    const pruner = new RetentionPruner({
      db: t.api.db,
      what: 'audit rows',
      prune: pruneAudit,
      retentionDays: 30,
      intervalMs: 20,
      logger,
    });
    pruner.start();
    await waitFor(async () => (await left()) === 2 || undefined, { what: 'old rows pruned' });
    await pruner.stop();
  });

  it('when AUDIT_RETENTION_DAYS is read, then it defaults to 365, takes 0, and refuses a negative value naming the key', () => {
    const env = { ...t.env };
    delete env.AUDIT_RETENTION_DAYS;
    expect(loadConfig(env, 'api').api.auditRetentionDays).to.equal(365);
    expect(
      loadConfig({ ...env, AUDIT_RETENTION_DAYS: '0' }, 'api').api.auditRetentionDays,
    ).to.equal(0);
    expect(() => loadConfig({ ...env, AUDIT_RETENTION_DAYS: '-1' }, 'api')).to.throw(
      /AUDIT_RETENTION_DAYS/,
    );
  });
});
