/**
 * The admin API (bearer ADMIN_API_KEY, a personal token or a console session, ./auth.ts; each
 * route allowed to the roles of its row in ./permissions.ts): bots, channels, webhook
 * registration, transcripts and conversations (./conversations.ts), handoffs (./handoffs.ts), flow versions
 * (./flow-versions.ts), knowledge collections (./collections.ts, ./collection-list.ts), live
 * events (../events/route.ts), operations (./ops.ts), accounts and invites (./account-routes.ts),
 * the caller's own sessions and tokens (./self-routes.ts), and test chats (../test-chats/routes.ts).
 * Bodies are checked against schemas/http/*.json; errors go through the error middleware.
 */
import type { Context } from 'koa';
import { Router } from '@koa/router';
import type { NewBot, NewChannel, BotPatch, WhatsAppDetails } from '../../shared/bots/types.ts';
import { BotwireError } from '../../shared/errors.ts';
import { DEFAULT_MESSAGING_LIMIT } from '../../shared/whatsapp-messaging-limit.ts';
import { readJson, refuseUnstorable } from '../body.ts';
import type { Edge } from '../edge.ts';
import { DEFAULT_FLOW } from '../../shared/flows/default-flow.ts';
import { validateFlow } from '../../shared/flows/validate-flow.ts';
import { botChanged } from './bot-changed.ts';
import { collectionListRoutes } from './collection-list.ts';
import { collectionRoutes } from './collections.ts';
import { conversationRoutes } from './conversations.ts';
import { handoffRoutes } from './handoffs.ts';
import { eventRoutes } from '../events/route.ts';
import { flowVersionRoutes } from './flow-versions.ts';
import { adminAuth } from './auth.ts';
import { auditRoutes } from '../audit/route.ts';
import { auditTrail } from '../audit/trail.ts';
import { securityHeaders } from './guard.ts';
import { opsRoutes } from './ops.ts';
import { testChatRoutes } from '../test-chats/routes.ts';
import { analyticsRoutes } from '../analytics/routes.ts';
import { conversationTestRoutes } from '../conversation-tests/routes.ts';
import { outboundRoutes } from '../outbound/routes.ts';
import { templateRoutes } from '../outbound/template-routes.ts';
import { broadcastRoutes } from '../broadcasts/routes.ts';
import { opsBotRoutes } from './ops-bots.ts';
import { enforcePermissions, principalMay } from './permissions.ts';
import { principalOf, requireBotAccess } from './principal.ts';
import { accountRoutes } from './account-routes.ts';
import { selfRoutes } from './self-routes.ts';
import { afterOf, limitOf } from './paging.ts';
import { botNote, changedFields } from './audit-summaries.ts';
import { presentBot, presentChannel } from './present.ts';
import { registerTelegramWebhook } from './telegram-webhook.ts';
import { listMessages } from './transcripts.ts';
import { UUID } from '../ids.ts';

async function body<T>(ctx: Context, edge: Edge, schema: string): Promise<T> {
  const read = await readJson(ctx, edge.bodyLimitBytes, edge.bodyTimeoutMs);
  // Admin bodies are stored in Postgres.
  refuseUnstorable(read);
  return checkBody<T>(edge, schema, read.json);
}

/** `json` if it passes `schema`. @throws BotwireError `BW_ERR_SCHEMA` with the problems. */
function checkBody<T>(edge: Edge, schema: string, json: unknown): T {
  const result = edge.schemas.validate<T>(schema, json);
  if (!result.ok) {
    const problems = result.problems;
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      `the body fails its schema: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
      {
        details: { problems },
      },
    );
  }
  return result.value;
}

type FlowProblem = { path: string; message: string };

/** Problems and warnings pointing into the request body (`/flow/states/...`). */
function inBody(problems: FlowProblem[]): FlowProblem[] {
  return problems.map((p) => ({ ...p, path: `/flow${p.path === '/' ? '' : p.path}` }));
}

/**
 * Checks a bot's flow; returns it with its warnings (which never refuse it: unreachable states, a
 * turn over the HTTP budgets), or throws `BW_ERR_FLOW_INVALID` with `details.problems` and
 * `details.warnings`.
 */
function checkFlow(
  edge: Edge,
  flow: unknown,
): { flow: Record<string, unknown>; warnings: FlowProblem[] } {
  const result = validateFlow(edge.schemas, flow);
  const warnings = inBody(result.warnings);
  if (result.ok) return { flow: flow as Record<string, unknown>, warnings };
  const problems = inBody(result.problems);
  throw new BotwireError(
    'BW_ERR_FLOW_INVALID',
    `the flow is invalid: ${problems.map((p) => `${p.path} ${p.message}`).join('; ')}`,
    {
      details: { problems, warnings },
    },
  );
}

/** Messages are paged by their numeric id. */
const MESSAGE_ID = /^\d{1,19}$/;
/** The route whose row says who may read a bot's flow (in every answer that holds one). */
const READ_FLOW = 'GET /v2/bots/:app_id/flow';

function channelIdOf(ctx: Context & { params: Record<string, string> }): string {
  const channelId = ctx.params.channel_id ?? '';
  if (!UUID.test(channelId))
    throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'the bot has no channel with this id');
  return channelId;
}

function appIdOf(ctx: Context & { params: Record<string, string> }): string {
  const appId = ctx.params.app_id ?? '';
  // App ids are UUIDs: anything else cannot exist, and must not reach a uuid-typed query.
  if (!UUID.test(appId)) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
  return appId;
}

export function adminRouter(edge: Edge): Router {
  const router = new Router();
  const present = presentBot.bind(null, edge.publicBaseUrl);

  router.use(securityHeaders(edge.publicBaseUrl));
  router.use(adminAuth(edge));
  router.use(enforcePermissions());
  router.use(auditTrail({ db: edge.db, onLost: edge.auditLost }));

  router.post('/v2/bots', async (ctx) => {
    const input = await body<NewBot>(ctx, edge, 'http/create-bot');
    const checked =
      input.flow === undefined ? { flow: DEFAULT_FLOW, warnings: [] } : checkFlow(edge, input.flow);
    const bot = await edge.store.createBot(
      { ...input, flow: checked.flow as Record<string, unknown> },
      principalOf(ctx).actor,
    );
    await botChanged(edge, bot.appId, 'created');
    ctx.state.audit = { after: botNote(bot) };
    ctx.status = 201;
    ctx.body = { ...present(bot), warnings: checked.warnings };
  });

  router.get('/v2/bots', async (ctx) => {
    const limit = limitOf(ctx);
    const { bots: assigned } = principalOf(ctx);
    const bots = await edge.store.listBots({
      limit: limit + 1,
      after: afterOf(ctx, UUID),
      ...(assigned === 'all' ? {} : { appIds: assigned }),
    });
    const items = bots.slice(0, limit);
    const withFlow = principalMay(principalOf(ctx), READ_FLOW);
    ctx.body = {
      items: items.map((bot) => present(bot, withFlow)),
      next_after: bots.length > limit ? (items[items.length - 1]?.appId ?? null) : null,
    };
  });

  router.get('/v2/bots/:app_id', async (ctx) => {
    const appId = appIdOf(ctx);
    requireBotAccess(ctx, appId);
    const bot = await edge.store.getBot(appId);
    if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    ctx.body = present(bot, principalMay(principalOf(ctx), READ_FLOW));
  });

  router.patch('/v2/bots/:app_id', async (ctx) => {
    const appId = appIdOf(ctx);
    const patch = await body<BotPatch>(ctx, edge, 'http/patch-bot');
    const warnings = patch.flow === undefined ? [] : checkFlow(edge, patch.flow).warnings;
    const before = await edge.store.getBot(appId);
    const bot = await edge.store.updateBot(appId, patch, principalOf(ctx).actor);
    if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    await botChanged(edge, appId, 'updated');
    if (before) ctx.state.audit = changedFields(botNote(before), botNote(bot), Object.keys(patch));
    ctx.body = { ...present(bot), warnings };
  });

  router.delete('/v2/bots/:app_id', async (ctx) => {
    const appId = appIdOf(ctx);
    const before = await edge.store.getBot(appId);
    if (!(await edge.store.deleteBot(appId)))
      throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    await botChanged(edge, appId, 'deleted');
    if (before) ctx.state.audit = { before: botNote(before) };
    ctx.status = 204;
  });

  router.post('/v2/bots/:app_id/channels', async (ctx) => {
    const appId = appIdOf(ctx);
    const input = await body<NewChannel>(ctx, edge, 'http/channel');
    if (!(await edge.store.getBot(appId)))
      throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    const channel = await edge.store.addChannel(appId, input);
    await botChanged(edge, appId, 'updated');
    // The type and id only: the details are credentials or close to them.
    ctx.state.audit = { after: { type: channel.type, id: channel.id } };
    ctx.status = 201;
    ctx.body = presentChannel(edge.publicBaseUrl, channel);
  });

  router.patch('/v2/bots/:app_id/channels/:channel_id', async (ctx) => {
    const appId = appIdOf(ctx);
    const channelId = channelIdOf(ctx);
    const input = await body<{ details: NewChannel['details'] }>(ctx, edge, 'http/patch-channel');
    const known = (await edge.store.getBot(appId))?.channels.find((c) => c.id === channelId);
    if (!known || known.type === 'console')
      throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'the bot has no channel with this id');
    // The details are checked as a new channel of the same type's are.
    checkBody(edge, 'http/channel', { type: known.type, details: input.details });
    const channel = await edge.store.updateChannel(appId, channelId, input.details);
    if (!channel)
      throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'the bot has no channel with this id');
    await botChanged(edge, appId, 'updated');
    // Which fields changed, never their values (credentials).
    ctx.state.audit = {
      after: { type: channel.type, id: channel.id, details: Object.keys(input.details) },
    };
    ctx.body = presentChannel(edge.publicBaseUrl, channel);
  });

  // The tier goes up as a number's quality holds: set on its own, without the access token again.
  router.put('/v2/bots/:app_id/channels/:channel_id/messaging-limit', async (ctx) => {
    const appId = appIdOf(ctx);
    const channelId = channelIdOf(ctx);
    const input = await body<{ messaging_limit: WhatsAppDetails['messaging_limit'] }>(
      ctx,
      edge,
      'http/messaging-limit',
    );
    const unknown = () =>
      new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'the bot has no WhatsApp channel with this id');
    let before: WhatsAppDetails['messaging_limit'];
    // The other details as they are when the row is locked: a token changed meanwhile stays.
    const channel = await edge.store.updateChannel(appId, channelId, (old) => {
      // Reading `secrets` of credentials that do not open is BW_ERR_CREDENTIALS_KEY.
      if (old.type !== 'whatsapp' || old.secrets.type !== 'whatsapp') throw unknown();
      before = old.secrets.details.messaging_limit;
      return { ...old.secrets.details, messaging_limit: input.messaging_limit };
    });
    if (!channel) throw unknown();
    await botChanged(edge, appId, 'updated');
    ctx.state.audit = {
      before: { messaging_limit: before ?? DEFAULT_MESSAGING_LIMIT },
      after: { messaging_limit: input.messaging_limit },
    };
    ctx.body = presentChannel(edge.publicBaseUrl, channel);
  });

  router.delete('/v2/bots/:app_id/channels/:channel_id', async (ctx) => {
    const appId = appIdOf(ctx);
    const channel = await edge.store.removeChannel(appId, channelIdOf(ctx));
    if (!channel)
      throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'the bot has no channel with this id');
    await botChanged(edge, appId, 'updated');
    ctx.state.audit = { before: { type: channel.type, id: channel.id } };
    ctx.status = 204;
  });

  router.post('/v2/bots/:app_id/channels/:channel_id/webhook', async (ctx) => {
    const appId = appIdOf(ctx);
    const channelId = ctx.params.channel_id ?? '';
    if (!UUID.test(channelId))
      throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'the bot has no channel with this id');
    ctx.body = { ok: true, ...(await registerTelegramWebhook(edge, appId, channelId)) };
    await edge.directory.notifyChanged(appId);
    ctx.state.audit = {
      after: { channel_id: channelId, url: (ctx.body as { url?: unknown }).url },
    };
  });

  conversationRoutes(router, edge);

  router.get('/v2/conversations/:id/messages', async (ctx) => {
    const id = ctx.params.id ?? '';
    const limit = limitOf(ctx);
    const after = afterOf(ctx, MESSAGE_ID);
    const page = UUID.test(id)
      ? await listMessages(edge.db, id, limit, after, (appId) => requireBotAccess(ctx, appId))
      : undefined;
    if (!page) throw new BotwireError('BW_ERR_NOT_FOUND', 'no conversation has this id');
    ctx.body = page;
  });

  handoffRoutes(router, edge, (ctx, schema) => body(ctx, edge, schema));
  collectionListRoutes(router, edge);
  collectionRoutes(router, edge, (ctx, schema) => body(ctx, edge, schema));
  eventRoutes(router, edge);
  flowVersionRoutes(router, edge, {
    readBody: (ctx, schema) => body(ctx, edge, schema),
    appIdOf,
    limitOf,
  });
  testChatRoutes(router, edge, { readBody: (ctx, schema) => body(ctx, edge, schema), appIdOf });
  analyticsRoutes(router, edge, appIdOf);
  outboundRoutes(router, edge, { readBody: (ctx, schema) => body(ctx, edge, schema), appIdOf });
  templateRoutes(router, edge, appIdOf);
  broadcastRoutes(router, edge, { readBody: (ctx, schema) => body(ctx, edge, schema), appIdOf });
  conversationTestRoutes(router, edge, {
    readBody: (ctx, schema) => body(ctx, edge, schema),
    appIdOf,
  });
  opsRoutes(router, edge, (ctx, schema) => body(ctx, edge, schema));
  opsBotRoutes(router, edge);
  auditRoutes(router, edge);
  accountRoutes(router, edge, (ctx, schema) => body(ctx, edge, schema));
  selfRoutes(router, edge, (ctx, schema) => body(ctx, edge, schema));
  return router;
}
