/**
 * The accounts part of the OpenAPI description (docs/accounts.md): accounts and invites for
 * owners, the caller's own identity, sessions and tokens, and the two invite routes used before
 * having an account. Request bodies are the JSON Schemas under schemas/http/.
 */
import { admin, answer, error } from './openapi-parts.ts';

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const body = (name: string) => ({
  required: true,
  content: { 'application/json': { schema: ref(name) } },
});
const role = { enum: ['owner', 'builder', 'agent', 'viewer'] };
const time = { type: 'string', format: 'date-time' };
const maybeTime = { type: ['string', 'null'], format: 'date-time' };
const uuid = { type: 'string', format: 'uuid' };
const list = (item: string) => ({
  type: 'object',
  required: ['items'],
  properties: { items: { type: 'array', items: ref(item) } },
});
const id = (what: string) => ({
  name: 'id',
  in: 'path',
  required: true,
  schema: uuid,
  description: `the ${what}'s id`,
});
const linkToken = {
  name: 'token',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{43}$' },
  description: 'the token of the invite link',
};

/** Response schemas, spread into `components.schemas`. */
export const accountSchemas = {
  account: {
    type: 'object',
    required: ['id', 'email', 'name', 'role', 'disabled', 'disabled_at', 'bots', 'created_by'],
    properties: {
      id: uuid,
      email: { type: 'string' },
      name: { type: 'string' },
      role,
      disabled: { type: 'boolean' },
      disabled_at: maybeTime,
      bots: { type: 'array', items: { type: 'string' }, description: 'assigned bots (app ids)' },
      created_by: { type: 'string' },
      created_at: time,
      updated_at: time,
    },
  },
  'account-list': list('account'),
  me: {
    type: 'object',
    required: ['actor', 'role', 'account_id', 'email', 'name', 'bots', 'may'],
    properties: {
      actor: {
        type: 'string',
        description: '"admin-key", "account:<email>" or "token:<id>@<email>"',
      },
      role,
      account_id: { type: ['string', 'null'], description: 'null for the admin key' },
      email: { type: ['string', 'null'] },
      name: { type: 'string' },
      bots: {
        type: ['array', 'null'],
        items: { type: 'string' },
        description: "an agent's assigned bots; null: every bot",
      },
      may: {
        type: 'array',
        items: { type: 'string' },
        description:
          'the admin routes the caller may call, as "METHOD /path/:param" (the permission table the API enforces, docs/accounts.md); the console shows only the controls of these',
      },
    },
  },
  'session-item': {
    type: 'object',
    required: ['id', 'actor', 'created_at', 'expires_at', 'address', 'user_agent', 'current'],
    properties: {
      id: uuid,
      actor: { type: 'string' },
      created_at: time,
      expires_at: time,
      address: { type: 'string' },
      user_agent: { type: 'string' },
      current: { type: 'boolean', description: 'the session of this request' },
    },
  },
  'session-list': list('session-item'),
  token: {
    type: 'object',
    required: ['id', 'name', 'role', 'created_at', 'last_used_at', 'revoked_at'],
    properties: {
      id: uuid,
      name: { type: 'string' },
      role,
      created_at: time,
      last_used_at: maybeTime,
      revoked_at: maybeTime,
      token: { type: 'string', description: 'only in the answer that made it: bwp_...' },
    },
  },
  'token-list': list('token'),
  invite: {
    type: 'object',
    required: ['id', 'role', 'email', 'bots', 'expires_at', 'used_at', 'created_by'],
    properties: {
      id: uuid,
      role,
      email: { type: ['string', 'null'] },
      bots: { type: 'array', items: { type: 'string' } },
      expires_at: time,
      used_at: maybeTime,
      account_id: { type: ['string', 'null'] },
      created_by: { type: 'string' },
      created_at: time,
      token: { type: 'string', description: 'only in the answer that made it' },
      url: { type: 'string', description: 'only in the answer that made it: the link to give' },
    },
  },
  'invite-list': list('invite'),
  'invite-public': {
    type: 'object',
    required: ['role', 'email', 'expires_at'],
    properties: { role, email: { type: ['string', 'null'] }, expires_at: time },
  },
};

/** The accounts routes, spread into `paths`. */
export const accountPaths = {
  '/v2/accounts': {
    get: {
      ...admin,
      summary: 'Every account (owners)',
      responses: { 200: answer('The accounts', ref('account-list')), '4XX': error },
    },
    post: {
      ...admin,
      summary: 'Make an account with its first password (owners); 409 when the email is taken',
      requestBody: body('create-account'),
      responses: { 201: answer('The account', ref('account')), '4XX': error },
    },
  },
  '/v2/accounts/{id}': {
    get: {
      ...admin,
      summary: 'One account (owners)',
      parameters: [id('account')],
      responses: { 200: answer('The account', ref('account')), '4XX': error },
    },
    patch: {
      ...admin,
      summary:
        'Change an account (owners): name, role, password, assigned bots, disabled. Disabling (or a new password) ends its sessions at once; its tokens stop with the disabling',
      parameters: [id('account')],
      requestBody: body('patch-account'),
      responses: { 200: answer('The account', ref('account')), '4XX': error },
    },
  },
  '/v2/accounts/{id}/sessions': {
    get: {
      ...admin,
      summary: "An account's live console sessions (owners)",
      parameters: [id('account')],
      responses: { 200: answer('The sessions', ref('session-list')), '4XX': error },
    },
    delete: {
      ...admin,
      summary: 'End every console session of an account (owners); answers {ended: <count>}',
      parameters: [id('account')],
      responses: {
        200: answer('How many ended', {
          type: 'object',
          required: ['ended'],
          properties: { ended: { type: 'integer' } },
        }),
        '4XX': error,
      },
    },
  },
  '/v2/invites': {
    get: {
      ...admin,
      summary: 'Open invites: not used, not ended (owners)',
      responses: { 200: answer('The invites', ref('invite-list')), '4XX': error },
    },
    post: {
      ...admin,
      summary:
        'Make an invite (owners): the answer holds the one-time link (url, token) the console shows; valid INVITE_TTL_S',
      requestBody: body('create-invite'),
      responses: { 201: answer('The invite with its link', ref('invite')), '4XX': error },
    },
  },
  '/v2/invites/{id}': {
    delete: {
      ...admin,
      summary: 'Withdraw an open invite (owners)',
      parameters: [id('invite')],
      responses: { 204: { description: 'Withdrawn' }, '4XX': error },
    },
  },
  '/v2/invites/{token}/accept': {
    get: {
      summary:
        'What an invite link offers (no sign-in); an unknown, used or ended link is 410 and counts toward ADMIN_AUTH_MAX_FAILURES',
      parameters: [linkToken],
      responses: { 200: answer('The invite', ref('invite-public')), '4XX': error },
    },
    post: {
      summary:
        'Use an invite link once (no sign-in): makes the account with the invited role and bots; then sign in with POST /v2/session',
      parameters: [linkToken],
      requestBody: body('accept-invite'),
      responses: { 201: answer('The new account', ref('account')), '4XX': error },
    },
  },
  '/v2/me': {
    get: {
      ...admin,
      summary: 'Who the caller is: actor, role, account and assigned bots',
      responses: { 200: answer('The caller', ref('me')), '4XX': error },
    },
  },
  '/v2/sessions': {
    get: {
      ...admin,
      summary: "The caller's live console sessions (none for the admin key)",
      responses: { 200: answer('The sessions', ref('session-list')), '4XX': error },
    },
  },
  '/v2/sessions/{id}': {
    delete: {
      ...admin,
      summary: "End one of the caller's console sessions",
      parameters: [id('session')],
      responses: { 204: { description: 'Ended' }, '4XX': error },
    },
  },
  '/v2/tokens': {
    get: {
      ...admin,
      summary: "The caller's personal API tokens, revoked ones included (never the tokens)",
      responses: { 200: answer('The tokens', ref('token-list')), '4XX': error },
    },
    post: {
      ...admin,
      summary:
        "Make a personal API token (Bearer bwp_...), of the caller's role or less: the answer is the only one holding it",
      requestBody: body('create-token'),
      responses: { 201: answer('The token', ref('token')), '4XX': error },
    },
  },
  '/v2/tokens/{id}': {
    delete: {
      ...admin,
      summary: 'Revoke a personal API token of the caller; its next use is 401',
      parameters: [id('token')],
      responses: { 204: { description: 'Revoked' }, '4XX': error },
    },
  },
};
