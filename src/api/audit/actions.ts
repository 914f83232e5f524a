/**
 * Which change each mutating admin route makes, for the audit log (docs/audit.md, "Actions"): one
 * row per `"METHOD /route/pattern"`, naming the action and how to find its target in the request
 * (path parameters) or the answer (the id of what was created). `null`: the route changes nothing
 * (it only computes an answer) and writes no audit row.
 */
import type { Context } from 'koa';

/** What a change was made to. */
export interface AuditTarget {
  type: string;
  id: string | null;
  /** The bot concerned, if any. */
  appId: string | null;
}

export interface AuditAction {
  action: string;
  target: (ctx: Context) => AuditTarget;
}

type Params = Record<string, string | undefined>;

const paramsOf = (ctx: Context): Params => (ctx as { params?: Params }).params ?? {};

const answered = (ctx: Context, field: string): string | null => {
  const value = (ctx.body as Record<string, unknown> | undefined)?.[field];
  return typeof value === 'string' ? value : null;
};

/** The bot named in the path. */
const bot = (ctx: Context): AuditTarget => {
  const appId = paramsOf(ctx).app_id ?? null;
  return { type: 'bot', id: appId, appId };
};

/** The bot's flow: its id is the bot's. */
const flow = (ctx: Context): AuditTarget => ({ ...bot(ctx), type: 'flow' });

const collection = (ctx: Context): AuditTarget => ({
  type: 'collection',
  id: paramsOf(ctx).name ?? null,
  appId: null,
});

/** A bot's conversation test, named by the path. */
const testOf = (ctx: Context): AuditTarget => ({
  type: 'test',
  id: paramsOf(ctx).name ?? null,
  appId: bot(ctx).appId,
});

/** A thing named by the path's `:id`. */
const byId =
  (type: string) =>
  (ctx: Context): AuditTarget => ({ type, id: paramsOf(ctx).id ?? null, appId: null });

/** A handoff; its bot is in the answer where the route answers with the handoff. */
const handoff = (ctx: Context): AuditTarget => ({
  type: 'handoff',
  id: paramsOf(ctx).id ?? null,
  appId: answered(ctx, 'app_id'),
});

/** A broadcast; its bot is in the answer (every move answers with the broadcast). */
const broadcast = (ctx: Context): AuditTarget => ({
  type: 'broadcast',
  id: paramsOf(ctx).id ?? answered(ctx, 'id'),
  appId: paramsOf(ctx).app_id ?? answered(ctx, 'app_id'),
});

/** The channel of the path, of the path's bot. */
const channel = (ctx: Context): AuditTarget => ({
  type: 'channel',
  id: paramsOf(ctx).channel_id ?? null,
  appId: bot(ctx).appId,
});

/** Every mutating route of the admin and session routers; a test keeps it complete. */
export const AUDIT_ACTIONS: Record<string, AuditAction | null> = {
  'POST /v2/bots': {
    action: 'bot.create',
    target: (ctx) => {
      const appId = answered(ctx, 'app_id');
      return { type: 'bot', id: appId, appId };
    },
  },
  'PATCH /v2/bots/:app_id': { action: 'bot.update', target: bot },
  'DELETE /v2/bots/:app_id': { action: 'bot.delete', target: bot },
  'POST /v2/bots/:app_id/channels': {
    action: 'channel.create',
    target: (ctx) => ({ type: 'channel', id: answered(ctx, 'id'), appId: bot(ctx).appId }),
  },
  'PATCH /v2/bots/:app_id/channels/:channel_id': {
    action: 'channel.update',
    target: channel,
  },
  'PUT /v2/bots/:app_id/channels/:channel_id/messaging-limit': {
    action: 'channel.messaging_limit',
    target: channel,
  },
  'DELETE /v2/bots/:app_id/channels/:channel_id': {
    action: 'channel.delete',
    target: channel,
  },
  'POST /v2/bots/:app_id/channels/:channel_id/webhook': {
    action: 'webhook.register',
    target: channel,
  },
  'PUT /v2/bots/:app_id/flow/draft': { action: 'flow.draft.save', target: flow },
  'DELETE /v2/bots/:app_id/flow/draft': { action: 'flow.draft.delete', target: flow },
  'POST /v2/bots/:app_id/flow/publish': { action: 'flow.publish', target: flow },
  'POST /v2/bots/:app_id/flow/versions/:version/publish': {
    action: 'flow.rollback',
    target: flow,
  },
  'POST /v2/bots/:app_id/test-chats': {
    action: 'test_chat.start',
    target: (ctx) => ({ type: 'test_chat', id: answered(ctx, 'chat_id'), appId: bot(ctx).appId }),
  },
  'PUT /v2/bots/:app_id/tests/:name': { action: 'test.save', target: (ctx) => testOf(ctx) },
  'DELETE /v2/bots/:app_id/tests/:name': { action: 'test.delete', target: (ctx) => testOf(ctx) },
  'POST /v2/bots/:app_id/tests/from-chat': {
    action: 'test.save',
    target: (ctx) => ({ type: 'test', id: answered(ctx, 'name'), appId: bot(ctx).appId }),
  },
  // A run computes results; it stores nothing.
  'POST /v2/bots/:app_id/tests/run': null,
  // The message itself is in the transcript, as an agent's reply is.
  'POST /v2/bots/:app_id/messages': {
    action: 'message.send',
    target: (ctx) => ({
      type: 'conversation',
      id: answered(ctx, 'conversation_id'),
      appId: bot(ctx).appId,
    }),
  },
  'POST /v2/bots/:app_id/templates/sync': { action: 'templates.sync', target: bot },
  // A dry run makes nothing: its audit row says so (`after` is absent).
  'POST /v2/bots/:app_id/broadcasts': { action: 'broadcast.create', target: broadcast },
  'POST /v2/broadcasts/:id/pause': { action: 'broadcast.pause', target: broadcast },
  'POST /v2/broadcasts/:id/resume': { action: 'broadcast.resume', target: broadcast },
  'POST /v2/broadcasts/:id/cancel': { action: 'broadcast.cancel', target: broadcast },
  'DELETE /v2/conversations/:id/opt-out': {
    action: 'conversation.opt_out.clear',
    target: (ctx) => ({
      type: 'conversation',
      id: paramsOf(ctx).id ?? null,
      appId: (ctx.state as { auditAppId?: string }).auditAppId ?? null,
    }),
  },
  // A test chat's message is in the test conversation's transcript, as a user's is in theirs.
  'POST /v2/bots/:app_id/test-chats/:chat_id/messages': null,
  // Validation answers whether a flow is valid; nothing is stored.
  'POST /v2/flows/validate': null,
  'PATCH /v2/collections/:name': { action: 'collection.update', target: collection },
  'POST /v2/collections/:name/files': { action: 'collection.upload', target: collection },
  'POST /v2/collections/:name/index': { action: 'collection.index', target: collection },
  'POST /v2/ops/dead-letters/:topic/replay': {
    action: 'dead_letter.replay',
    target: (ctx) => ({ type: 'topic', id: paramsOf(ctx).topic ?? null, appId: null }),
  },
  'POST /v2/handoffs/:id/claim': { action: 'handoff.claim', target: handoff },
  'POST /v2/handoffs/:id/release': { action: 'handoff.release', target: handoff },
  'POST /v2/handoffs/:id/messages': { action: 'handoff.reply', target: handoff },
  // A typing indicator changes nothing that lasts.
  'POST /v2/handoffs/:id/typing': null,
  'POST /v2/handoffs/:id/notes': { action: 'handoff.note', target: handoff },
  'POST /v2/handoffs/:id/return': { action: 'handoff.return', target: handoff },
  'POST /v2/handoffs/:id/close': { action: 'handoff.close', target: handoff },
  'POST /v2/accounts': {
    action: 'account.create',
    target: (ctx) => ({ type: 'account', id: answered(ctx, 'id'), appId: null }),
  },
  'PATCH /v2/accounts/:id': { action: 'account.update', target: byId('account') },
  'DELETE /v2/accounts/:id/sessions': { action: 'account.sessions.end', target: byId('account') },
  'POST /v2/invites': {
    action: 'invite.create',
    target: (ctx) => ({ type: 'invite', id: answered(ctx, 'id'), appId: null }),
  },
  'DELETE /v2/invites/:id': { action: 'invite.withdraw', target: byId('invite') },
  // The path holds the invite's secret token: the target is the account it made.
  'POST /v2/invites/:token/accept': {
    action: 'invite.accept',
    target: (ctx) => ({ type: 'account', id: answered(ctx, 'id'), appId: null }),
  },
  'DELETE /v2/sessions/:id': { action: 'session.revoke', target: byId('session') },
  'POST /v2/tokens': {
    action: 'token.create',
    target: (ctx) => ({ type: 'token', id: answered(ctx, 'id'), appId: null }),
  },
  'DELETE /v2/tokens/:id': { action: 'token.revoke', target: byId('token') },
  'POST /v2/session': {
    action: 'console.sign_in',
    target: () => ({ type: 'session', id: null, appId: null }),
  },
  'DELETE /v2/session': {
    action: 'console.sign_out',
    target: () => ({ type: 'session', id: null, appId: null }),
  },
};

/**
 * The action of `method` on `route` (a router pattern). A mutating route missing from the table
 * is still recorded, as `"<METHOD> <route>"` with its path parameters: the log never misses a
 * change because the table lags behind the routes.
 */
export function auditActionOf(method: string, route: string): AuditAction | null {
  const known = AUDIT_ACTIONS[`${method} ${route}`];
  if (known !== undefined) return known;
  return {
    action: `${method} ${route}`,
    target: (ctx) => {
      const params = paramsOf(ctx);
      const appId = params.app_id ?? null;
      return { type: 'route', id: JSON.stringify(params), appId };
    },
  };
}
