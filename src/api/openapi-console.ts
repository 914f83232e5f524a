/**
 * The console's part of the OpenAPI description: the session routes, and the shapes of bots as the
 * admin API answers them (the console's TypeScript types are generated from these).
 */
import { answer, error } from './openapi-parts.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problem = {
  type: 'object',
  required: ['path', 'message'],
  properties: { path: { type: 'string' }, message: { type: 'string' } },
};

/** Response schemas, spread into `components.schemas`. */
export const consoleSchemas = {
  'channel-view': {
    type: 'object',
    required: ['id', 'type', 'callback_url', 'webhook_registered_at', 'created_at'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      type: { type: 'string', description: 'telegram, whatsapp or web' },
      callback_url: { type: 'string' },
      webhook_registered_at: { type: ['string', 'null'], format: 'date-time' },
      created_at: { type: 'string', format: 'date-time' },
      credentials: {
        const: 'unreadable',
        description: 'present when the stored credentials do not open with the configured keys',
      },
      phone_number_id: { type: 'string' },
      has_app_secret: { type: 'boolean' },
      has_verify_token: { type: 'boolean' },
      business_account_id: {
        type: ['string', 'null'],
        description: 'whatsapp: the Business Account its message templates are synced from',
      },
      messaging_limit: {
        enum: [250, 1000, 10000, 100000, 'unlimited'],
        description:
          'whatsapp: unique users a day the number may start conversations with by template (its tier; 250 unless set)',
      },
      allowed_origins: {
        type: 'array',
        items: { type: 'string' },
        description: 'web: the page origins the widget may run on',
      },
      sessions_url: { type: 'string' },
      events_url: { type: 'string' },
      widget_url: { type: 'string' },
      widget_snippet: { type: 'string', description: 'web: the line to paste into the pages' },
    },
  },
  bot: {
    type: 'object',
    required: ['app_id', 'name', 'active', 'created_at', 'updated_at', 'channels'],
    properties: {
      app_id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      language: { type: ['string', 'null'] },
      active: { type: 'boolean' },
      handoff: {
        type: 'object',
        description: 'live-agent handoff settings: keywords and timeout_s (docs/handoff.md)',
        properties: {
          keywords: { type: 'array', items: { type: 'string' } },
          timeout_s: { type: 'integer' },
        },
      },
      flow: {
        type: 'object',
        description: 'the current flow; absent for an agent, who gets `states` instead',
      },
      states: {
        type: 'array',
        items: { type: 'string' },
        description:
          "for an agent only: the names of the flow's states (agents may not read the flow)",
      },
      created_at: { type: 'string', format: 'date-time' },
      updated_at: { type: 'string', format: 'date-time' },
      channels: { type: 'array', items: ref('channel-view') },
      warnings: {
        type: 'array',
        items: problem,
        description: 'after a create or update: warnings about the flow, never a refusal',
      },
    },
  },
  'bot-page': {
    type: 'object',
    required: ['items', 'next_after'],
    properties: {
      items: { type: 'array', items: ref('bot') },
      next_after: { type: ['string', 'null'] },
    },
  },
  'webhook-result': {
    type: 'object',
    required: ['ok', 'url', 'registered_at'],
    properties: {
      ok: { const: true },
      url: { type: 'string' },
      registered_at: { type: 'string', format: 'date-time' },
      telegram: {
        type: 'object',
        properties: { ok: { type: 'boolean' }, description: { type: 'string' } },
      },
    },
  },
  session: {
    type: 'object',
    required: ['id', 'actor', 'role', 'account_id', 'expires_at'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      actor: {
        type: 'string',
        description: '"account:<email>", or "admin-key" for an admin-key sign-in',
      },
      role: { enum: ['owner', 'builder', 'agent', 'viewer'] },
      account_id: { type: ['string', 'null'], description: 'null for an admin-key sign-in' },
      expires_at: { type: 'string', format: 'date-time' },
    },
  },
};

/** The session routes, spread into `paths`. */
export const consolePaths = {
  '/v2/session': {
    post: {
      summary:
        "Console sign-in: an account's email and password, or the admin key, exchanged for the bw_session cookie (HttpOnly, SameSite=Strict, Path=/, Secure on https), valid CONSOLE_SESSION_TTL_S. A wrong key or password is 401 and counts toward ADMIN_AUTH_MAX_FAILURES for the address and, for a password, ACCOUNT_AUTH_MAX_FAILURES for the email (then 429 with Retry-After). With the cookie, the admin routes of the account's role answer; POST, PUT, PATCH and DELETE then need an Origin header equal to the service origin (403 BW_ERR_ORIGIN_REFUSED otherwise)",
      requestBody: {
        required: true,
        content: { 'application/json': { schema: ref('session-request') } },
      },
      responses: {
        204: { description: 'Signed in: Set-Cookie bw_session' },
        400: error,
        401: error,
        429: error,
      },
    },
    get: {
      summary: "The console session of the request's cookie",
      responses: { 200: answer('The session', ref('session')), 401: error },
    },
    delete: {
      summary: 'Sign out: the session is deleted on the server and the cookie cleared',
      responses: { 204: { description: 'Signed out' }, 403: error },
    },
  },
};
