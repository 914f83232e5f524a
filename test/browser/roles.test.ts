/**
 * The console for each role, in a real browser against the real service: a walk over every page
 * as an owner, a builder, a viewer and an agent. Every control that calls a route names it
 * (`data-route`); on each page each one shown must be one the permission table the API enforces
 * (src/api/admin/permissions.ts) allows the role, so no one is offered a form that is refused.
 * The controls a role may use are there too (the walk would pass on a console showing nothing).
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { allowed } from '../../src/api/admin/permissions.ts';
import type { Role } from '../../src/api/admin/principal.ts';
import { TELEGRAM_TOKEN } from '../support/api.ts';
import {
  apiCall,
  consoleService,
  releaseConsoleService,
  signInWithPassword,
  type ConsoleService,
} from './support.ts';

describe('the console for each role', function () {
  this.timeout(300_000);
  let service: ConsoleService;
  let appId: string;
  const suffix = randomBytes(3).toString('hex');

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
    const created = await apiCall(service, 'POST', '/v2/bots', {
      name: `walked bot ${suffix}`,
      channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
    });
    appId = created.app_id;
  });

  after(releaseConsoleService);

  /** Every page of the console, as a signed-in person reaches it. */
  const pages = () => [
    '/console/bots',
    `/console/bots/${appId}`,
    `/console/bots/${appId}/flow`,
    `/console/bots/${appId}/chat`,
    `/console/bots/${appId}/conversations`,
    `/console/bots/${appId}/analytics`,
    '/console/inbox',
    '/console/knowledge',
    `/console/knowledge/walk-${suffix}`,
    '/console/operations',
    '/console/accounts',
    '/console/tokens',
    '/console/audit',
  ];

  /** The routes of the controls on the page once it has settled. */
  async function routesOn(page: Page, path: string): Promise<string[]> {
    await page.goto(path);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    // Who is signed in is known (the header names them), and what the page loads has come.
    await page.getByText('Signed in as').waitFor();
    await page.waitForLoadState('networkidle');
    return page
      .locator('[data-route]')
      .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-route') ?? ''));
  }

  const expected: Record<Role, { shown: string[]; hidden: string[] }> = {
    owner: {
      shown: ['POST /v2/bots', 'PUT /v2/bots/:app_id/flow/draft', 'GET /v2/audit'],
      hidden: [],
    },
    builder: {
      shown: [
        'POST /v2/bots',
        'PUT /v2/bots/:app_id/flow/draft',
        'POST /v2/bots/:app_id/test-chats',
      ],
      hidden: ['GET /v2/audit', 'GET /v2/accounts'],
    },
    viewer: {
      shown: ['GET /v2/bots/:app_id/flow', 'GET /v2/collections', 'GET /v2/bots/:app_id/analytics'],
      hidden: ['POST /v2/bots', 'PUT /v2/bots/:app_id/flow/draft', 'PATCH /v2/bots/:app_id'],
    },
    agent: {
      shown: ['GET /v2/handoffs'],
      hidden: [
        'POST /v2/bots',
        'GET /v2/bots/:app_id/flow',
        'PATCH /v2/bots/:app_id',
        'GET /v2/collections',
        'GET /v2/bots/:app_id/analytics',
      ],
    },
  };

  for (const role of ['owner', 'builder', 'viewer', 'agent'] as const) {
    it(`when ${role === 'owner' ? 'an' : 'a'} ${role} walks over every page, then every control shown calls a route the permission table allows the ${role}, and the ones it may use are there`, async () => {
      const account = {
        email: `${role}-${suffix}@example.test`,
        password: `${role} password ${suffix}`,
      };
      await apiCall(service, 'POST', '/v2/accounts', {
        ...account,
        name: `${role} ${suffix}`,
        role,
        ...(role === 'agent' ? { bots: [appId] } : {}),
      });
      const page = await signInWithPassword(service, account);
      const seen = new Set<string>();
      for (const path of pages()) {
        const routes = await routesOn(page, path);
        const refused = routes.filter((route) => !allowed(route, role));
        expect(refused, `${path}: controls a ${role} may not use`).to.deep.equal([]);
        for (const route of routes) seen.add(route);
      }
      expect([...seen]).to.include.members(expected[role].shown);
      for (const route of expected[role].hidden) expect(seen.has(route), route).to.equal(false);
    });
  }
});
