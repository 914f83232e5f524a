/**
 * Accounts in a real browser against the real service: an owner signs in with email and password,
 * invites an agent for one bot from the Accounts page and copies the link; the link, opened in
 * another browser context, lets the invited person set a password and sign in; the agent then
 * sees only its bot and only the sections its role can use.
 */
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { TELEGRAM_TOKEN } from '../support/api.ts';
import {
  apiCall,
  checkA11y,
  consoleService,
  releaseConsoleService,
  expectNoCspViolations,
  screenshot,
  type ConsoleService,
} from './support.ts';

describe('accounts in a browser', function () {
  this.timeout(180_000);
  let service: ConsoleService;

  const admin = (method: string, path: string, body?: unknown) =>
    apiCall(service, method, path, body);

  before(async function () {
    this.timeout(300_000);
    service = await consoleService();
  });

  after(releaseConsoleService);

  it('when an owner invites an agent for one bot, then the link opened elsewhere makes the account, which signs in and sees only its bot and its sections', async () => {
    const suffix = randomBytes(3).toString('hex');
    const channel = { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } };
    const mine = await admin('POST', '/v2/bots', { name: `inbox bot ${suffix}`, channel });
    await admin('POST', '/v2/bots', { name: `other bot ${suffix}`, channel });
    const ownerEmail = `owner-${suffix}@example.test`;
    const ownerPassword = `owner password ${suffix}`;
    await admin('POST', '/v2/accounts', {
      email: ownerEmail,
      name: 'Olga Owner',
      role: 'owner',
      password: ownerPassword,
    });

    // The owner signs in with email and password.
    const owner = await service.newPage();
    await owner.goto('/console/');
    await owner.getByLabel('Email').fill(ownerEmail);
    await owner.getByLabel('Password').fill('not the password');
    await owner.getByRole('button', { name: 'Sign in', exact: true }).click();
    await owner.getByRole('alert').filter({ hasText: 'email or password is wrong' }).waitFor();
    await owner.getByLabel('Password').fill(ownerPassword);
    await owner.getByRole('button', { name: 'Sign in', exact: true }).click();
    await owner.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    await owner.getByText('Signed in as').filter({ hasText: 'Olga Owner' }).waitFor();

    // Accounts: invite an agent for one bot; the link is shown to copy.
    await owner.getByRole('link', { name: 'Accounts' }).click();
    await owner.getByRole('heading', { name: 'Accounts', level: 1 }).waitFor();
    await owner.getByLabel('Role', { exact: true }).selectOption('agent');
    await owner.getByRole('checkbox', { name: `inbox bot ${suffix}` }).check();
    await owner.getByRole('button', { name: 'Create invite link' }).click();
    const link = await owner.getByLabel(/^Invite link/).inputValue();
    expect(link).to.match(new RegExp(`^${service.url}/console/invite/[A-Za-z0-9_-]{43}$`));
    await checkA11y(owner, 'accounts');
    await screenshot(owner, 'accounts');

    // Another browser, no session: the link.
    const agent = await service.newPage();
    await agent.goto(link);
    await agent.getByRole('heading', { name: 'Join botwire' }).waitFor();
    await agent.getByText('You are invited as').filter({ hasText: 'agent' }).waitFor();
    await checkA11y(agent, 'invite');
    const agentEmail = `agent-${suffix}@example.test`;
    await agent.getByLabel('Email').fill(agentEmail);
    await agent.getByLabel('Your name').fill('Ada Agent');
    await agent.getByLabel(/^Choose a password/).fill(`agent password ${suffix}`);
    await agent.getByRole('button', { name: 'Create my account' }).click();

    // Signed in as the agent: its bot only, and no sections an agent cannot use.
    await agent.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    await agent.getByText('Signed in as').filter({ hasText: 'Ada Agent' }).waitFor();
    await agent.getByRole('link', { name: `inbox bot ${suffix}` }).waitFor();
    expect(await agent.getByRole('link', { name: `other bot ${suffix}` }).count()).to.equal(0);
    const nav = agent.getByRole('navigation', { name: 'Sections' });
    expect(await nav.getByRole('link').allTextContents()).to.deep.equal([
      'Bots',
      'Inbox',
      'My tokens',
    ]);

    // An open invite is listed and can be withdrawn: its link then stops working.
    await owner.getByRole('button', { name: 'Create invite link' }).click();
    const spare = await owner.getByLabel(/^Invite link/).inputValue();
    const invites = owner.getByRole('region', { name: 'Open invites' });
    await invites.getByRole('row').filter({ hasText: 'agent' }).first().waitFor();
    await invites.getByRole('button', { name: /^Withdraw the agent invite/ }).click();
    await owner
      .getByRole('dialog', { name: 'Withdraw this invite?' })
      .getByRole('button', { name: 'Withdraw' })
      .click();
    await invites.getByText('No open invite.').waitFor();
    const withdrawn = await service.newPage();
    await withdrawn.goto(spare);
    await withdrawn.getByRole('alert').waitFor();

    // The link works once.
    const again = await service.newPage();
    await again.goto(link);
    await again.getByRole('alert').filter({ hasText: 'already used' }).waitFor();

    // The owner sees the new account, and disables it: the agent's next call signs it out.
    await owner.reload();
    await owner.getByRole('row', { name: /Ada Agent/ }).waitFor();
    await owner.getByRole('button', { name: 'Disable Ada Agent' }).click();
    await owner.getByRole('button', { name: 'Enable Ada Agent' }).waitFor();
    await agent.getByRole('link', { name: 'My tokens' }).click();
    await agent.getByRole('button', { name: 'Sign in with the admin key' }).waitFor();
    expect(mine.app_id).to.be.a('string');
    expectNoCspViolations(owner);
    expectNoCspViolations(agent);
  });
});
