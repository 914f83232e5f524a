/**
 * Accounts through the admin API: made and changed by owners, their sessions (listed, ended one
 * by one, all ended by disabling), personal tokens (shown once, stored hashed, revoked), invites
 * (one use), agents kept to their assigned bots, and role changes counting from the next call.
 */
import { expect } from 'chai';
import { createHash, randomUUID } from 'node:crypto';
import {
  makeAccount,
  makeBot,
  ORIGIN,
  signIn,
  withCookie,
  withToken,
} from '../support/accounts.ts';
import { PERMISSIONS } from '../../src/api/admin/permissions.ts';
import { startTestApi, type TestApi } from '../support/api.ts';
import { openSse } from '../support/sse.ts';

describe('operator accounts, sessions, tokens and invites', function () {
  this.timeout(120_000);
  let t: TestApi;
  let botA: string;
  let botB: string;

  before(async () => {
    t = await startTestApi();
    botA = await makeBot(t, 'bot a');
    botB = await makeBot(t, 'bot b');
  });

  after(async () => {
    await t?.stop();
  });

  it('when an owner makes an account, then it signs in with its email in any case, /v2/me names it, and a duplicate email is 409 BW_ERR_CONFLICT', async () => {
    const builder = await makeAccount(t, 'builder');
    const me = await withCookie(t, builder.cookie, 'GET', '/v2/me');
    expect(me.status).to.equal(200);
    expect(me.json).to.include({
      actor: `account:${builder.email}`,
      role: 'builder',
      account_id: builder.id,
      email: builder.email,
      bots: null,
    });
    // What the console may show: the permission table's routes a builder may call, exactly.
    expect(me.json.may).to.deep.equal(
      Object.keys(PERMISSIONS).filter((key) => PERMISSIONS[key]!.includes('builder')),
    );
    expect(me.json.may).to.include('POST /v2/bots').and.not.include('GET /v2/audit');
    expect((await signIn(t, builder.email.toUpperCase(), builder.password)).status).to.equal(204);
    const again = await t.call('POST', '/v2/accounts', {
      body: {
        email: builder.email.toUpperCase(),
        name: 'x',
        role: 'viewer',
        password: 'another long password',
      },
    });
    expect([again.status, again.json.error.code]).to.deep.equal([409, 'BW_ERR_CONFLICT']);
    const listed = await t.call('GET', '/v2/accounts');
    const row = listed.json.items.find((a: any) => a.id === builder.id);
    expect(row).to.include({ email: builder.email, role: 'builder', disabled: false });
    expect(JSON.stringify(listed.json)).to.not.include('scrypt');
  });

  it('when an owner disables an account, then its session and its token are refused on their next call (401), its sessions are gone from Redis, and its right password no longer signs in', async () => {
    const viewer = await makeAccount(t, 'viewer');
    expect((await withCookie(t, viewer.cookie, 'GET', '/v2/bots')).status).to.equal(200);
    expect((await withToken(t, viewer.token, 'GET', '/v2/bots')).status).to.equal(200);
    const disabled = await t.call('PATCH', `/v2/accounts/${viewer.id}`, {
      body: { disabled: true },
    });
    expect([disabled.status, disabled.json.disabled]).to.deep.equal([200, true]);
    const bySession = await withCookie(t, viewer.cookie, 'GET', '/v2/bots');
    expect([bySession.status, bySession.json.error.code]).to.deep.equal([
      401,
      'BW_ERR_UNAUTHORIZED',
    ]);
    const byToken = await withToken(t, viewer.token, 'GET', '/v2/bots');
    expect([byToken.status, byToken.json.error.code]).to.deep.equal([401, 'BW_ERR_UNAUTHORIZED']);
    expect(await t.redis.hlen(`${t.prefix}:account-sessions:{${viewer.id}}`)).to.equal(0);
    const signed = await signIn(t, viewer.email, viewer.password);
    expect([signed.status, signed.json.error.code]).to.deep.equal([401, 'BW_ERR_UNAUTHORIZED']);
    // Enabled again: a new sign-in works (the old session stays ended).
    await t.call('PATCH', `/v2/accounts/${viewer.id}`, { body: { disabled: false } });
    expect((await signIn(t, viewer.email, viewer.password)).status).to.equal(204);
    expect((await withCookie(t, viewer.cookie, 'GET', '/v2/bots')).status).to.equal(401);
  });

  it("when an account's role changes, then its session acts with the new role from the next call", async () => {
    const builder = await makeAccount(t, 'builder');
    const made = await withCookie(t, builder.cookie, 'POST', '/v2/flows/validate', { flow: {} });
    expect(made.status).to.not.equal(403);
    await t.call('PATCH', `/v2/accounts/${builder.id}`, { body: { role: 'viewer' } });
    const refused = await withCookie(t, builder.cookie, 'POST', '/v2/flows/validate', {
      flow: {},
    });
    expect([refused.status, refused.json.error.code]).to.deep.equal([403, 'BW_ERR_FORBIDDEN']);
    // Its builder token is taken down to the account's role too.
    const byToken = await withToken(t, builder.token, 'POST', '/v2/flows/validate', { flow: {} });
    expect(byToken.status).to.equal(403);
  });

  it("when an owner's agent token outlives the owner's demotion to viewer, then it may do only what both roles may: its assigned bot, read, without the flow", async () => {
    const owner = await makeAccount(t, 'owner', [botA]);
    const made = await withCookie(t, owner.cookie, 'POST', '/v2/tokens', {
      name: 'inbox',
      role: 'agent',
    });
    expect(made.status, made.text).to.equal(201);
    const token = made.json.token as string;
    const listed = async () =>
      (await withToken(t, token, 'GET', '/v2/bots')).json.items.map((b: any) => b.app_id);
    expect(await listed()).to.deep.equal([botA]);
    await t.call('PATCH', `/v2/accounts/${owner.id}`, { body: { role: 'viewer' } });
    // A viewer reads every bot, an agent its assigned ones: the token, both, reads only those.
    expect(await listed()).to.deep.equal([botA]);
    const other = await withToken(t, token, 'GET', `/v2/bots/${botB}`);
    expect([other.status, other.json.error.code]).to.deep.equal([403, 'BW_ERR_FORBIDDEN']);
    const own = await withToken(t, token, 'GET', `/v2/bots/${botA}`);
    expect(own.status).to.equal(200);
    expect(own.json).to.not.have.property('flow');
    const flow = await withToken(t, token, 'GET', `/v2/bots/${botA}/flow`);
    expect(flow.status).to.equal(403);
    // An agent may claim a handoff, a viewer may not: neither may the token.
    const claim = await withToken(t, token, 'POST', `/v2/handoffs/${randomUUID()}/claim`);
    expect([claim.status, claim.json.error.code]).to.deep.equal([403, 'BW_ERR_FORBIDDEN']);
  });

  it("when an owner's owner token outlives the owner's demotion to viewer, then it makes no token above viewer (403 BW_ERR_FORBIDDEN) and its default is a viewer token", async () => {
    const owner = await makeAccount(t, 'owner');
    await t.call('PATCH', `/v2/accounts/${owner.id}`, { body: { role: 'viewer' } });
    for (const role of ['owner', 'builder', 'agent']) {
      const made = await withToken(t, owner.token, 'POST', '/v2/tokens', { name: 'up', role });
      expect([role, made.status, made.json.error?.code]).to.deep.equal([
        role,
        403,
        'BW_ERR_FORBIDDEN',
      ]);
    }
    const plain = await withToken(t, owner.token, 'POST', '/v2/tokens', { name: 'plain' });
    expect([plain.status, plain.json.role]).to.deep.equal([201, 'viewer']);
    const rows = await t.api.db('api_tokens').where({ account_id: owner.id }).select('role');
    expect(rows.map((r: { role: string }) => r.role).sort()).to.deep.equal(['owner', 'viewer']);
  });

  it('when a token is made, then it is shown once, stored only as its SHA-256, works as a bearer until revoked, and then is refused with 401', async () => {
    const builder = await makeAccount(t, 'builder');
    const made = await withCookie(t, builder.cookie, 'POST', '/v2/tokens', {
      name: 'ci',
      role: 'viewer',
    });
    expect(made.status).to.equal(201);
    const { token, id } = made.json;
    expect(token).to.match(/^bwp_[A-Za-z0-9_-]{43}$/);
    const listed = await withCookie(t, builder.cookie, 'GET', '/v2/tokens');
    expect(listed.json.items.map((i: any) => i.id)).to.include(id);
    expect(listed.text).to.not.include(token);
    const row = await t.api.db('api_tokens').where({ id }).first();
    expect(row.token_hash).to.equal(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).to.not.include(token.slice(4));
    // A viewer token of a builder reads but does not build.
    expect((await withToken(t, token, 'GET', '/v2/bots')).status).to.equal(200);
    const build = await withToken(t, token, 'POST', '/v2/flows/validate', { flow: {} });
    expect([build.status, build.json.error.code]).to.deep.equal([403, 'BW_ERR_FORBIDDEN']);
    expect((await t.api.db('api_tokens').where({ id }).first()).last_used_at).to.not.equal(null);
    // Nor can it make itself more than its role.
    const owner = await withCookie(t, builder.cookie, 'POST', '/v2/tokens', {
      name: 'up',
      role: 'owner',
    });
    expect([owner.status, owner.json.error.code]).to.deep.equal([403, 'BW_ERR_FORBIDDEN']);
    const revoked = await withCookie(t, builder.cookie, 'DELETE', `/v2/tokens/${id}`);
    expect(revoked.status).to.equal(204);
    const after = await withToken(t, token, 'GET', '/v2/bots');
    expect([after.status, after.json.error.code]).to.deep.equal([401, 'BW_ERR_UNAUTHORIZED']);
    // Another account cannot revoke (or see) it.
    const other = await makeAccount(t, 'viewer');
    const foreign = await withCookie(t, other.cookie, 'DELETE', `/v2/tokens/${id}`);
    expect(foreign.status).to.equal(404);
  });

  it('when an invite is made, then its link works once: the invited person sets a name and password, signs in with the invited role and bots, and a second use is 410 BW_ERR_INVITE_INVALID', async () => {
    const email = `agent-${randomUUID().slice(0, 8)}@example.test`;
    const invite = await t.call('POST', '/v2/invites', {
      body: { role: 'agent', email, bots: [botA] },
    });
    expect(invite.status).to.equal(201);
    // An agent sees only its bots: an agent invite with none would make a useless account.
    for (const bots of [undefined, []]) {
      const none = await t.call('POST', '/v2/invites', {
        body: { role: 'agent', ...(bots ? { bots } : {}) },
      });
      expect([none.status, none.json.error.code]).to.deep.equal([400, 'BW_ERR_SCHEMA']);
    }
    const { token, url } = invite.json;
    expect(url).to.equal(`https://bots.example.test/console/invite/${token}`);
    const row = await t.api.db('invites').where({ id: invite.json.id }).first();
    expect(row.token_hash).to.equal(createHash('sha256').update(token).digest('hex'));
    const shown = await t.call('GET', `/v2/invites/${token}/accept`, { auth: false });
    expect(shown.json).to.include({ role: 'agent', email });
    const accepted = await t.call('POST', `/v2/invites/${token}/accept`, {
      auth: false,
      body: { name: 'Agent Ann', password: 'a long enough password' },
    });
    expect(accepted.status, accepted.text).to.equal(201);
    expect(accepted.json).to.include({ email, role: 'agent', name: 'Agent Ann' });
    expect(accepted.json.bots).to.deep.equal([botA]);
    const twice = await t.call('POST', `/v2/invites/${token}/accept`, {
      auth: false,
      body: { name: 'Mallory', password: 'a long enough password', email: 'm@example.test' },
    });
    expect([twice.status, twice.json.error.code]).to.deep.equal([410, 'BW_ERR_INVITE_INVALID']);
    expect((await signIn(t, email, 'a long enough password')).status).to.equal(204);
    const open = await t.call('GET', '/v2/invites');
    expect(open.json.items.map((i: any) => i.id)).to.not.include(invite.json.id);
  });

  it('when an agent is assigned one bot, then it lists and reads only that bot, its conversations and transcripts, and its event stream', async () => {
    const agent = await makeAccount(t, 'agent', [botA]);
    const bots = await withToken(t, agent.token, 'GET', '/v2/bots');
    expect(bots.json.items.map((b: any) => b.app_id)).to.deep.equal([botA]);
    expect((await withToken(t, agent.token, 'GET', `/v2/bots/${botA}`)).status).to.equal(200);
    const other = await withToken(t, agent.token, 'GET', `/v2/bots/${botB}`);
    expect([other.status, other.json.error.code]).to.deep.equal([403, 'BW_ERR_FORBIDDEN']);
    const convs = await withToken(t, agent.token, 'GET', `/v2/bots/${botB}/conversations`);
    expect(convs.status).to.equal(403);
    expect(
      (await withToken(t, agent.token, 'GET', `/v2/bots/${botA}/conversations`)).status,
    ).to.equal(200);
    // A conversation of bot B, read by id: refused.
    const channel = (await t.api.db('channels').where({ app_id: botB }).first('id')).id;
    await t.api.db('users').insert({ pid: 'u-agent-test', channel_type: 'telegram' });
    const [conversation] = await t.api
      .db('conversations')
      .insert({ app_id: botB, channel_id: channel, chat_id: 'c1', user_pid: 'u-agent-test' })
      .returning('id');
    const read = await withToken(t, agent.token, 'GET', `/v2/conversations/${conversation.id}`);
    expect([read.status, read.json.error.code]).to.deep.equal([403, 'BW_ERR_FORBIDDEN']);
    const transcript = await withToken(
      t,
      agent.token,
      'GET',
      `/v2/conversations/${conversation.id}/messages`,
    );
    expect(transcript.status).to.equal(403);
    expect((await t.call('GET', `/v2/conversations/${conversation.id}/messages`)).status).to.equal(
      200,
    );
    // Its live events: bot A's only, even when it asks for bot B's.
    const stream = await openSse(t.url, `/v2/events?types=bot&app_id=${botA},${botB}`, {
      authorization: `Bearer ${agent.token}`,
    });
    try {
      expect(stream.status).to.equal(200);
      for (const appId of [botB, botA]) {
        const patched = await t.call('PATCH', `/v2/bots/${appId}`, { body: { active: true } });
        expect(patched.status).to.equal(200);
      }
      const [event] = await stream.waitForEvents(1, 'bot');
      expect(event!.data.app_id).to.equal(botA);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(stream.events.map((e) => e.data?.app_id)).to.not.include(botB);
    } finally {
      stream.close();
    }
    // Reassigned to bot B: the next call sees B.
    await t.call('PATCH', `/v2/accounts/${agent.id}`, { body: { bots: [botB] } });
    expect(
      (await withToken(t, agent.token, 'GET', `/v2/conversations/${conversation.id}`)).status,
    ).to.equal(200);
  });

  it('when an account signs in twice, then it lists both sessions, ends the other one by id, and that cookie is refused while the current one works', async () => {
    const viewer = await makeAccount(t, 'viewer');
    const second = await signIn(t, viewer.email, viewer.password);
    const listed = await withCookie(t, second.cookie, 'GET', '/v2/sessions');
    expect(listed.json.items).to.have.length(2);
    const first = listed.json.items.find((s: any) => !s.current);
    expect(listed.json.items.filter((s: any) => s.current)).to.have.length(1);
    expect(JSON.stringify(listed.json)).to.not.include(second.cookie.slice('bw_session='.length));
    const ended = await withCookie(t, second.cookie, 'DELETE', `/v2/sessions/${first.id}`);
    expect(ended.status).to.equal(204);
    expect((await withCookie(t, viewer.cookie, 'GET', '/v2/me')).status).to.equal(401);
    expect((await withCookie(t, second.cookie, 'GET', '/v2/me')).status).to.equal(200);
    // An owner sees and ends them too.
    const owned = await t.call('GET', `/v2/accounts/${viewer.id}/sessions`);
    expect(owned.json.items).to.have.length(1);
    expect((await t.call('DELETE', `/v2/accounts/${viewer.id}/sessions`)).json).to.deep.equal({
      ended: 1,
    });
    expect((await withCookie(t, second.cookie, 'GET', '/v2/me')).status).to.equal(401);
  });

  it('when a cookie request changes an account, then it needs the service origin like every console change', async () => {
    const owner = await makeAccount(t, 'owner');
    const foreign = await t.call('POST', '/v2/invites', {
      auth: false,
      headers: { cookie: owner.cookie, origin: 'https://evil.example' },
      body: { role: 'owner' },
    });
    expect([foreign.status, foreign.json.error.code]).to.deep.equal([403, 'BW_ERR_ORIGIN_REFUSED']);
    const own = await t.call('POST', '/v2/invites', {
      auth: false,
      headers: { cookie: owner.cookie, origin: ORIGIN },
      body: { role: 'viewer' },
    });
    expect(own.status).to.equal(201);
    expect(own.json.created_by).to.equal(`account:${owner.email}`);
  });
});
