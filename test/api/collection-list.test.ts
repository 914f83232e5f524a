import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApi, type TestApi } from '../support/api.ts';
import { index, upload } from '../support/knowledge.ts';

describe('admin API: collections list and jobs', function () {
  this.timeout(60_000);
  let t: TestApi;
  let storageDir: string;
  let appId: string;
  let betaJob: string;

  before(async () => {
    storageDir = await mkdtemp(join(tmpdir(), 'botwire-storage-'));
    t = await startTestApi({ STORAGE_DIR: storageDir });
    const db = t.schema.db;
    const bot = await t.call('POST', '/v2/bots', {
      body: {
        name: 'owner',
        channel: {
          type: 'telegram',
          details: { bot_token: '123456789:AAExampleTokenForTests_abcdefghijk' },
        },
      },
    });
    appId = bot.json.app_id;
    // alpha: indexed twice (an older job that succeeded, a newer one with one file failed).
    await db('collections').insert({
      name: 'alpha',
      language: 'english',
      file_count: 2,
      chunk_count: 40,
      indexed_at: '2026-11-20T10:00:00Z',
      owner_app_id: appId,
    });
    for (const [jobId, status, outcome] of [
      ['job_old', 'succeeded', { 'a.pdf': { status: 'indexed', chunks: 20 } }],
      [
        'job_new',
        'partial',
        {
          'a.pdf': { status: 'indexed', chunks: 20 },
          'b.pdf': {
            status: 'failed',
            kept_chunks: 0,
            error: { code: 'BW_ERR_DOCUMENT_UNREADABLE', message: 'no text' },
          },
        },
      ],
    ] as const) {
      await db('index_jobs').insert({
        job_id: jobId,
        collection_name: 'alpha',
        files: JSON.stringify(['a.pdf', 'b.pdf']),
        status,
        files_total: 2,
        files_done: 2,
        outcome: JSON.stringify(outcome),
      });
    }
    // beta: uploaded and queued, never indexed (no row). gamma: only its ownership set.
    const uploaded = await upload(t, 'beta', { 'prices.csv': Buffer.from('item,price\ntea,2\n') });
    expect(uploaded.status).to.equal(201);
    betaJob = await index(t, 'beta');
    const patched = await t.call('PATCH', '/v2/collections/gamma', { body: { shared: true } });
    expect(patched.status).to.equal(200);
  });

  after(async () => {
    await t.stop();
    await rm(storageDir, { recursive: true, force: true });
  });

  it('when collections are listed, then each comes by name with owner, counts, uploads and its last job, in pages', async () => {
    const all = await t.call('GET', '/v2/collections');
    expect(all.status).to.equal(200);
    expect(all.json.next_after).to.equal(null);
    const [alpha, beta, gamma] = all.json.items;
    expect(all.json.items.map((c: any) => c.name)).to.deep.equal(['alpha', 'beta', 'gamma']);
    expect(alpha).to.include({
      owner_app_id: appId,
      shared: false,
      files: 2,
      chunks: 40,
      uploaded_files: 0,
    });
    expect(alpha.last_job).to.deep.equal({ job_id: 'job_new', status: 'partial' });
    expect(Date.parse(alpha.updated_at)).to.be.at.least(Date.parse('2026-11-20T10:00:00Z'));
    expect(beta).to.include({ owner_app_id: null, shared: false, files: 0, uploaded_files: 1 });
    expect(beta.last_job).to.deep.equal({ job_id: betaJob, status: 'queued' });
    expect(gamma).to.include({ shared: true, files: 0, last_job: null });

    const first = await t.call('GET', '/v2/collections?limit=2');
    expect(first.json.items.map((c: any) => c.name)).to.deep.equal(['alpha', 'beta']);
    expect(first.json.next_after).to.equal('beta');
    const rest = await t.call('GET', '/v2/collections?limit=2&after=beta');
    expect(rest.json.items.map((c: any) => c.name)).to.deep.equal(['gamma']);
    expect(rest.json.next_after).to.equal(null);
  });

  it("when a collection's jobs are listed, then newest first with progress and failed files, in pages", async () => {
    const first = await t.call('GET', '/v2/collections/alpha/jobs?limit=1');
    expect(first.status).to.equal(200);
    expect(first.json.items).to.have.length(1);
    expect(first.json.items[0]).to.include({
      job_id: 'job_new',
      collection: 'alpha',
      status: 'partial',
      files_total: 2,
      files_done: 2,
      files_failed: 1,
      error: null,
    });
    const rest = await t.call('GET', `/v2/collections/alpha/jobs?after=${first.json.next_after}`);
    expect(rest.json.items.map((j: any) => [j.job_id, j.files_failed])).to.deep.equal([
      ['job_old', 0],
    ]);
    expect(rest.json.next_after).to.equal(null);
    const gamma = await t.call('GET', '/v2/collections/gamma/jobs');
    expect([gamma.status, gamma.json.items]).to.deep.equal([200, []]);
  });

  it('when the collection does not exist or the name or cursor is malformed, then 404 or 400', async () => {
    const missing = await t.call('GET', '/v2/collections/nothing-here/jobs');
    expect([missing.status, missing.json.error.code]).to.deep.equal([404, 'BW_ERR_NOT_FOUND']);
    const badName = await t.call('GET', '/v2/collections/.hidden/jobs');
    expect(badName.status).to.equal(400);
    const badCursor = await t.call('GET', '/v2/collections?after=..');
    expect([badCursor.status, badCursor.json.error.code]).to.deep.equal([400, 'BW_ERR_SCHEMA']);
  });
});
