/**
 * Which roles may call each admin route (docs/accounts.md has the same table for people). One
 * middleware enforces it for the whole admin router; a route with no row here is for owners only,
 * and test/api/permissions.test.ts fails when any admin route lacks a row.
 *
 * Agents pass here for routes about bots, conversations and events; the handlers then narrow them
 * to the bots they are assigned to (`requireBotAccess`, filtered lists and event streams).
 */
import type { Context, Middleware } from 'koa';
import { BotwireError } from '../../shared/errors.ts';
import { matchedRoute } from '../matched-route.ts';
import { principalOf, ROLES, type Principal, type Role } from './principal.ts';

const ALL = ROLES;
const BUILD: readonly Role[] = ['owner', 'builder'];
const READ: readonly Role[] = ['owner', 'builder', 'viewer'];
const OWNER: readonly Role[] = ['owner'];
const HANDLE: readonly Role[] = ['owner', 'agent'];

/** "METHOD /path/pattern" (as registered on the router) -> the roles allowed. HEAD is GET's. */
export const PERMISSIONS: Readonly<Record<string, readonly Role[]>> = {
  // Bots and channels. Agents see the bots they are assigned to.
  'GET /v2/bots': ALL,
  'POST /v2/bots': BUILD,
  'GET /v2/bots/:app_id': ALL,
  'PATCH /v2/bots/:app_id': BUILD,
  'DELETE /v2/bots/:app_id': BUILD,
  'POST /v2/bots/:app_id/channels': BUILD,
  'PATCH /v2/bots/:app_id/channels/:channel_id': BUILD,
  'DELETE /v2/bots/:app_id/channels/:channel_id': BUILD,
  'PUT /v2/bots/:app_id/channels/:channel_id/messaging-limit': BUILD,
  'POST /v2/bots/:app_id/channels/:channel_id/webhook': BUILD,
  // Conversations and transcripts: agents for their bots' only.
  'GET /v2/bots/:app_id/conversations': ALL,
  'GET /v2/conversations/:id': ALL,
  'GET /v2/conversations/:id/messages': ALL,
  // Live events: agents get their bots' events only.
  'GET /v2/events': ALL,
  // Flows and their versions.
  'POST /v2/flows/validate': BUILD,
  'GET /v2/bots/:app_id/flow': READ,
  'PUT /v2/bots/:app_id/flow/draft': BUILD,
  'DELETE /v2/bots/:app_id/flow/draft': BUILD,
  'POST /v2/bots/:app_id/flow/publish': BUILD,
  'GET /v2/bots/:app_id/flow/versions': READ,
  'GET /v2/bots/:app_id/flow/versions/:version': READ,
  'POST /v2/bots/:app_id/flow/versions/:version/publish': BUILD,
  'GET /v2/bots/:app_id/flow/impact': READ,
  'GET /v2/bots/:app_id/flow/llm-usage': READ,
  // Analytics: what builders and viewers watch; agents handle conversations, not figures.
  'GET /v2/bots/:app_id/analytics': READ,
  // The bot writing first (a notification from the operator's systems): who builds the bot.
  'POST /v2/bots/:app_id/messages': BUILD,
  // WhatsApp templates: synced by builders, read by everyone of the bot (agents send them).
  'POST /v2/bots/:app_id/templates/sync': BUILD,
  'GET /v2/bots/:app_id/templates': ALL,
  // Broadcasts: made and moved by builders, followed by viewers too.
  'POST /v2/bots/:app_id/broadcasts': BUILD,
  'GET /v2/bots/:app_id/broadcasts': READ,
  'GET /v2/broadcasts/:id': READ,
  'POST /v2/broadcasts/:id/pause': BUILD,
  'POST /v2/broadcasts/:id/resume': BUILD,
  'POST /v2/broadcasts/:id/cancel': BUILD,
  'GET /v2/broadcasts/:id/recipients': READ,
  'DELETE /v2/conversations/:id/opt-out': BUILD,
  // Test chats run a draft or a version through the pipeline: its HTTP and LLM steps too.
  'POST /v2/bots/:app_id/test-chats': BUILD,
  'POST /v2/bots/:app_id/test-chats/:chat_id/messages': BUILD,
  'GET /v2/bots/:app_id/test-chats/:chat_id/events': BUILD,
  // Conversation tests: read by whoever reads flows; written and run (their stand-ins only, never
  // a real call) by builders.
  'GET /v2/bots/:app_id/tests': READ,
  'PUT /v2/bots/:app_id/tests/:name': BUILD,
  'DELETE /v2/bots/:app_id/tests/:name': BUILD,
  'POST /v2/bots/:app_id/tests/from-chat': BUILD,
  'POST /v2/bots/:app_id/tests/run': BUILD,
  // Knowledge collections.
  'GET /v2/collections': READ,
  'GET /v2/collections/:name': READ,
  'PATCH /v2/collections/:name': BUILD,
  'GET /v2/collections/:name/jobs': READ,
  'POST /v2/collections/:name/files': BUILD,
  'POST /v2/collections/:name/index': BUILD,
  'GET /v2/collections/:name/search': READ,
  'GET /v2/collections/:name/unanswered': READ,
  'GET /v2/index-jobs/:job_id': READ,
  // Operations: reading for every role but agents; a replay re-sends messages, so builders too.
  'GET /v2/ops/processes': READ,
  'GET /v2/ops/topics': READ,
  'GET /v2/ops/bots': READ,
  'GET /v2/ops/dead-letters/:topic': READ,
  'GET /v2/ops/dead-letters/:topic/:id': READ,
  'POST /v2/ops/dead-letters/:topic/replay': BUILD,
  // Accounts and invites: owners.
  'GET /v2/accounts': OWNER,
  'POST /v2/accounts': OWNER,
  'GET /v2/accounts/:id': OWNER,
  'PATCH /v2/accounts/:id': OWNER,
  'GET /v2/accounts/:id/sessions': OWNER,
  'DELETE /v2/accounts/:id/sessions': OWNER,
  'GET /v2/invites': OWNER,
  'POST /v2/invites': OWNER,
  'DELETE /v2/invites/:id': OWNER,
  // One's own: who am I, my sessions, my tokens.
  'GET /v2/me': ALL,
  'GET /v2/sessions': ALL,
  'DELETE /v2/sessions/:id': ALL,
  'GET /v2/tokens': ALL,
  'POST /v2/tokens': ALL,
  'DELETE /v2/tokens/:id': ALL,

  // Handoffs: agents answer for their assigned bots (requireBotAccess in every handler); builders
  // and viewers may look at the inbox but not act in a conversation.
  'GET /v2/handoffs': ALL,
  'GET /v2/handoffs/:id': ALL,
  'POST /v2/handoffs/:id/claim': HANDLE,
  'POST /v2/handoffs/:id/release': HANDLE,
  'POST /v2/handoffs/:id/messages': HANDLE,
  'POST /v2/handoffs/:id/typing': HANDLE,
  'POST /v2/handoffs/:id/notes': HANDLE,
  'POST /v2/handoffs/:id/return': HANDLE,
  'POST /v2/handoffs/:id/close': HANDLE,

  // Who changed what.
  'GET /v2/audit': OWNER,
};

/** The row key of a request: its method (HEAD as GET) and the pattern of the route it matched. */
export function routeKey(ctx: Context): string | undefined {
  const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
  const path = matchedRoute(ctx);
  return path === undefined ? undefined : `${method} ${path}`;
}

/** Whether `role` may call the route of `key` (no row: owners only). */
export function allowed(key: string | undefined, role: Role): boolean {
  const roles = (key !== undefined ? PERMISSIONS[key] : undefined) ?? OWNER;
  return roles.includes(role);
}

/** Whether `principal` may call the route of `key`: its role, and the role it is held within. */
export function principalMay(principal: Principal, key: string | undefined): boolean {
  return (
    allowed(key, principal.role) &&
    (principal.within === undefined || allowed(key, principal.within))
  );
}

/**
 * Refuses with 403 BW_ERR_FORBIDDEN a principal whose role (or the role it is held within) has no
 * place in the route's row.
 */
export function enforcePermissions(): Middleware {
  return async (ctx, next) => {
    const principal = principalOf(ctx);
    if (!principalMay(principal, routeKey(ctx))) {
      const role = allowed(routeKey(ctx), principal.role) ? principal.within : principal.role;
      throw new BotwireError('BW_ERR_FORBIDDEN', `the ${role} role may not use this route`);
    }
    await next();
  };
}
