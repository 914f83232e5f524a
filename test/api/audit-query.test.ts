/**
 * GET /v2/audit: filters by actor, action, bot and time, newest-first paging, refused queries,
 * its OpenAPI description; and the route -> action table covering every mutating admin route.
 */
import { expect } from 'chai';
import { adminRouter } from '../../src/api/admin/routes.ts';
import { sessionRouter } from '../../src/api/admin/session-routes.ts';
import { AUDIT_ACTIONS } from '../../src/api/audit/actions.ts';
import { writeAudit, type AuditEntry } from '../../src/api/audit/store.ts';
import type { Edge } from '../../src/api/edge.ts';
import { startTestApi, type TestApi } from '../support/api.ts';

const BOT_A = '11111111-1111-4111-8111-111111111111';
const BOT_B = '22222222-2222-4222-8222-222222222222';

const entry = (over: Partial<AuditEntry>): AuditEntry => ({
  actor: 'admin-key',
  accountId: null,
  address: '127.0.0.1',
  action: 'bot.update',
  targetType: 'bot',
  targetId: BOT_A,
  appId: BOT_A,
  summary: {},
  ...over,
});

describe('audit log: reading', function () {
  this.timeout(30_000);
  let t: TestApi;

  before(async () => {
    t = await startTestApi();
    const db = t.api.db;
    // 25 rows: bot A by admin-key (bot.update), bot B by console (flow.publish), one a year old.
    for (let i = 0; i < 25; i++) {
      await writeAudit(
        db,
        i % 2 === 0
          ? entry({ summary: { after: { n: i } } })
          : entry({
              actor: 'console',
              action: 'flow.publish',
              targetType: 'flow',
              targetId: BOT_B,
              appId: BOT_B,
              summary: { after: { n: i } },
            }),
      );
    }
    await db('audit_log')
      .where('id', (await db('audit_log').min('id as id').first())!.id)
      .update({ at: db.raw("now() - interval '400 days'") });
  });

  after(async () => {
    await t?.stop();
  });

  const get = (query: string) => t.call('GET', `/v2/audit${query}`);

  it('when the log is read in pages, then newest first, every row once, next_after null at the end', async () => {
    const seen: number[] = [];
    let after = '';
    for (;;) {
      const page = await get(`?limit=10${after ? `&after=${after}` : ''}`);
      expect(page.status).to.equal(200);
      seen.push(
        ...page.json.items.map((r: { summary: { after: { n: number } } }) => r.summary.after.n),
      );
      if (page.json.next_after === null) break;
      after = page.json.next_after;
    }
    expect(seen).to.deep.equal([...Array(25).keys()].reverse());
    const first = (await get('?limit=1')).json.items[0];
    expect(first).to.include({
      actor: 'admin-key',
      action: 'bot.update',
      target_type: 'bot',
      app_id: BOT_A,
    });
    expect(first).to.have.keys(
      'id',
      'at',
      'actor',
      'account_id',
      'address',
      'action',
      'target_type',
      'target_id',
      'app_id',
      'summary',
    );
  });

  it('when filtered by actor, action or app_id, then only matching rows', async () => {
    const byActor = (await get('?actor=console&limit=100')).json.items;
    expect(byActor).to.have.length(12);
    expect(byActor.every((r: { actor: string }) => r.actor === 'console')).to.equal(true);
    const byAction = (await get('?action=bot.update&limit=100')).json.items;
    expect(byAction).to.have.length(13);
    const byBot = (await get(`?app_id=${BOT_B}&limit=100`)).json.items;
    expect(byBot).to.have.length(12);
    expect((await get(`?app_id=${BOT_B}&action=bot.update`)).json.items).to.have.length(0);
  });

  it('when filtered by since and until, then only rows in that time', async () => {
    const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString();
    expect((await get(`?since=${monthAgo}&limit=100`)).json.items).to.have.length(24);
    const old = (await get(`?until=${monthAgo}&limit=100`)).json.items;
    expect(old).to.have.length(1);
    expect(old[0].summary.after.n).to.equal(0);
  });

  it('when a query is malformed, then 400 BW_ERR_SCHEMA naming the parameter', async () => {
    for (const [query, path] of [
      ['?app_id=nope', '/query/app_id'],
      ['?since=yesterday', '/query/since'],
      ['?until=2026-13-40T00:00:00Z', '/query/until'],
      ['?after=abc', '/query/after'],
      ['?limit=0', '/query/limit'],
      ['?actor=a&actor=b', '/query/actor'],
    ] as const) {
      const answer = await get(query);
      expect(answer.status, query).to.equal(400);
      expect(answer.json.error.code).to.equal('BW_ERR_SCHEMA');
      expect(answer.json.error.details.problems[0].path).to.equal(path);
    }
    expect((await t.call('GET', '/v2/audit', { auth: false })).status).to.equal(401);
  });

  it('when the OpenAPI description is read, then GET /v2/audit is in it with its filters and page schema', async () => {
    const { json } = await t.call('GET', '/v2/openapi.json', { auth: false });
    const route = json.paths['/v2/audit'].get;
    expect(route.parameters.map((p: { name: string }) => p.name)).to.include.members([
      'actor',
      'action',
      'app_id',
      'since',
      'until',
      'limit',
      'after',
    ]);
    expect(json.components.schemas['audit-entry'].required).to.include('actor');
  });

  it('when the admin and session routers are listed, then every mutating route has a row in the action table', () => {
    // Building the routers touches none of these: they are read when a request arrives.
    const edge = {
      publicBaseUrl: 'https://bots.example.test',
      adminApiKey: 'k',
      db: t.api.db,
    } as unknown as Edge;
    const routes: string[] = [];
    for (const router of [adminRouter(edge), sessionRouter(edge)]) {
      for (const layer of router.stack) {
        for (const method of layer.methods) {
          if (['GET', 'HEAD', 'OPTIONS'].includes(method)) continue;
          routes.push(`${method} ${layer.path}`);
        }
      }
    }
    expect(routes.length).to.be.above(10);
    const missing = routes.filter((r) => !(r in AUDIT_ACTIONS));
    expect(missing, 'mutating routes without an audit action').to.deep.equal([]);
    const stale = Object.keys(AUDIT_ACTIONS).filter((r) => !routes.includes(r));
    expect(stale, 'audit actions of routes that do not exist').to.deep.equal([]);
  });
});
