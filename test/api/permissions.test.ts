/**
 * Every admin route against every role: the routes are read from the running edge's admin router
 * (so a new route without a row in src/api/admin/permissions.ts fails here), and each is called
 * with a personal token of each role. Allowed: anything but 403; otherwise 403 BW_ERR_FORBIDDEN.
 * Agents are assigned to one bot, whose id fills every `:app_id`. The bodies count too: the bot's
 * flow carries a secret in an HTTP step's header, and no answer to a role that may not read flows
 * (no `GET /v2/bots/:app_id/flow` in its row) holds it.
 */
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Router } from '@koa/router';
import { PERMISSIONS } from '../../src/api/admin/permissions.ts';
import { makeAccount, withToken, type TestAccount } from '../support/accounts.ts';
import { startTestApi, TELEGRAM_TOKEN, type TestApi } from '../support/api.ts';
import { ROOT } from '../support/services.ts';

const ROLES = ['owner', 'builder', 'agent', 'viewer'] as const;

/** The routes ("METHOD /pattern") of the router that serves `/v2/bots`. */
function adminRoutes(t: TestApi): string[] {
  const routers = t.api.app.middleware
    .map((m) => (m as { router?: Router }).router)
    .filter((r): r is Router => r !== undefined);
  const admin = routers.find((r) => r.stack.some((l) => l.path === '/v2/bots'));
  expect(admin, 'the admin router').to.not.equal(undefined);
  return admin!.stack.flatMap((layer) =>
    layer.methods.filter((m) => m !== 'HEAD').map((m) => `${m} ${String(layer.path)}`),
  );
}

describe('admin route permissions: every route, every role', function () {
  this.timeout(120_000);
  let t: TestApi;
  let appId: string;
  const accounts = new Map<string, TestAccount>();

  /** In the shared bot's flow only: what an HTTP step sends its endpoint. */
  const secret = `Bearer flow-secret-${randomUUID()}`;
  /** Each role's answers, as text, from the walk of every route. */
  const answers = new Map<string, string[]>(ROLES.map((role) => [role, []]));

  before(async () => {
    t = await startTestApi();
    // Version 1 holds the secret too: the walk rolls back to it.
    const flow = {
      version: 1,
      start: 'ask',
      states: {
        ask: { wait: { store: 'q' }, next: 'call' },
        call: {
          actions: [
            {
              http: {
                method: 'POST',
                url: 'https://crm.example.test/leads',
                headers: { Authorization: secret },
                body: { q: '{{q}}' },
                store: 'lead',
              },
            },
          ],
          next: 'ask',
        },
      },
    };
    const bot = await t.call('POST', '/v2/bots', {
      body: {
        name: 'permissions',
        flow,
        channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
      },
    });
    expect(bot.status, bot.text).to.equal(201);
    appId = bot.json.app_id as string;
    for (const role of ROLES) accounts.set(role, await makeAccount(t, role, [appId]));
  });

  after(async () => {
    await t?.stop();
  });

  it('when the admin router is walked, then every route has a row in the permissions table and every row a route', () => {
    const routes = adminRoutes(t);
    expect(routes.length).to.be.greaterThan(40);
    const missing = routes.filter((r) => PERMISSIONS[r] === undefined);
    expect(missing, 'routes without a row in src/api/admin/permissions.ts').to.deep.equal([]);
    const stale = Object.keys(PERMISSIONS).filter((row) => !routes.includes(row));
    expect(stale, 'rows without a route').to.deep.equal([]);
  });

  it('when docs/accounts.md lists the routes, then its table says for each route and role what the permissions table does', () => {
    const text = readFileSync(join(ROOT, 'docs', 'accounts.md'), 'utf8');
    const documented: Record<string, string[]> = {};
    for (const line of text.split('\n')) {
      const cells = line.split('|').map((c) => c.trim());
      const route = /^`((?:GET|POST|PUT|PATCH|DELETE) \/v2\/[^`]+)`$/.exec(cells[1] ?? '')?.[1];
      if (route === undefined) continue;
      documented[route] = ROLES.filter((_, i) => (cells[i + 2] ?? '—') !== '—');
    }
    const coded = Object.fromEntries(
      Object.entries(PERMISSIONS).map(([route, roles]) => [
        route,
        ROLES.filter((r) => roles.includes(r)),
      ]),
    );
    expect(documented).to.deep.equal(coded);
  });

  /** A path to call for a pattern: ids nothing has (a delete must not remove the shared bot). */
  function pathOf(method: string, pattern: string): string {
    return pattern
      .replace(':app_id', method === 'DELETE' ? randomUUID() : appId)
      .replace(':channel_id', randomUUID())
      .replace(':id', randomUUID())
      .replace(':job_id', randomUUID())
      .replace(':name', 'permissions-docs')
      .replace(':topic', 'flow')
      .replace(':version', '1');
  }

  /** The status of a call; an event stream is closed once its headers came. */
  async function statusOf(
    token: string,
    method: string,
    path: string,
  ): Promise<{ status: number; code?: string; text: string }> {
    if (path === '/v2/events') {
      const controller = new AbortController();
      const response = await fetch(`${t.url}${path}`, {
        headers: { authorization: `Bearer ${token}` },
        signal: controller.signal,
      });
      const code =
        response.status === 403 ? ((await response.json()) as any).error.code : undefined;
      controller.abort();
      return { status: response.status, code, text: '' };
    }
    const answer = await withToken(t, token, method, path);
    return { status: answer.status, code: answer.json?.error?.code, text: answer.text };
  }

  it('when each role calls each admin route, then it is served exactly where its row allows, and refused with 403 BW_ERR_FORBIDDEN elsewhere', async () => {
    const wrong: string[] = [];
    for (const route of adminRoutes(t)) {
      const [method = '', pattern = ''] = route.split(' ');
      for (const role of ROLES) {
        const { status, code, text } = await statusOf(
          accounts.get(role)!.token,
          method,
          pathOf(method, pattern),
        );
        answers.get(role)!.push(`${route} => ${text}`);
        const allowed = PERMISSIONS[route]!.includes(role);
        const ok = allowed ? status !== 403 : status === 403 && code === 'BW_ERR_FORBIDDEN';
        if (!ok) wrong.push(`${role} ${route}: ${status} ${code ?? ''} (allowed: ${allowed})`);
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('when a role may not read flows, then none of its answers to any route holds a flow or what its HTTP steps send; the others read it', () => {
    const readers = PERMISSIONS['GET /v2/bots/:app_id/flow']!;
    for (const role of ROLES) {
      const leaks = answers.get(role)!.filter((answer) => answer.includes(secret));
      if (readers.includes(role)) expect(leaks, role).to.not.deep.equal([]);
      else
        expect(
          leaks.map((a) => a.split(' => ')[0]),
          role,
        ).to.deep.equal([]);
    }
  });

  it('when an agent reads its bot or the bot list, then it gets the state names in place of the flow', async () => {
    const token = accounts.get('agent')!.token;
    const one = await withToken(t, token, 'GET', `/v2/bots/${appId}`);
    const list = await withToken(t, token, 'GET', '/v2/bots');
    for (const bot of [one.json, list.json.items[0]]) {
      expect(bot).to.include({ app_id: appId });
      expect(bot).to.not.have.property('flow');
      expect(bot.states).to.deep.equal(['ask', 'call']);
    }
    const builder = await withToken(t, accounts.get('builder')!.token, 'GET', `/v2/bots/${appId}`);
    expect(builder.json.flow.states.call.actions[0].http.headers.Authorization).to.equal(secret);
  });

  it('when the shared bot is still there after the walk, then no refused call changed it', async () => {
    const bot = await t.call('GET', `/v2/bots/${appId}`);
    expect([bot.status, bot.json.name]).to.deep.equal([200, 'permissions']);
  });
});
