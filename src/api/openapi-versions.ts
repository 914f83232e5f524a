/**
 * OpenAPI paths of flow drafts, versions, publishing, rollback, impact and validation
 * (`admin/flow-versions.ts`; docs/flows.md, "Versions"). Spread into the document's `paths`.
 */
import { admin, appId, error, page } from './openapi-parts.ts';
import { testRunSchema } from './openapi-conversation-tests.ts';

const versionParam = {
  name: 'version',
  in: 'path',
  required: true,
  schema: { type: 'integer', minimum: 1 },
};

const flow = { type: 'object', description: 'a flow (docs/flows.md)' };
const problem = {
  type: 'object',
  required: ['path', 'message'],
  properties: {
    path: { type: 'string', description: 'JSON Pointer into the flow, e.g. /states/ask/next' },
    message: { type: 'string' },
  },
};
const problems = { type: 'array', items: problem };
const when = { type: 'string', format: 'date-time' };
const versionCore = {
  version: { type: 'integer', minimum: 1 },
  author: { type: 'string', description: 'who published it: admin-key, console, ...' },
  created_at: when,
  note: { type: ['string', 'null'] },
};
const published = {
  type: 'object',
  required: ['version', 'flow', 'author', 'created_at', 'note'],
  properties: { ...versionCore, flow },
};
const version = {
  type: 'object',
  required: ['version', 'flow', 'author', 'created_at', 'note', 'current'],
  properties: {
    ...versionCore,
    flow,
    current: { type: 'boolean', description: 'the version new turns use' },
  },
};
const madeCurrent = {
  ...version,
  required: [...version.required, 'warnings'],
  properties: { ...version.properties, warnings: problems },
};
const names = { type: 'array', items: { type: 'string' } };
const listed = {
  type: 'object',
  required: ['version', 'author', 'created_at', 'note', 'current', 'changes'],
  properties: {
    ...versionCore,
    current: { type: 'boolean' },
    changes: {
      type: 'object',
      description: 'state names compared with the previous version',
      required: ['added', 'removed', 'changed'],
      properties: { added: names, removed: names, changed: names },
    },
  },
};
const draft = {
  type: 'object',
  required: ['flow', 'author', 'revision', 'updated_at', 'problems', 'warnings'],
  properties: {
    flow,
    author: { type: 'string' },
    revision: { type: 'integer', minimum: 1, description: 'bumped on every save' },
    updated_at: when,
    problems,
    warnings: problems,
  },
};

const answer = (description: string, schema: Record<string, unknown>) => ({
  description,
  content: { 'application/json': { schema } },
});

export const versionPaths: Record<string, unknown> = {
  '/v2/flows/validate': {
    post: {
      ...admin,
      summary:
        "Validate a flow with the server's validator; an invalid flow is an answer (200, ok false), never a 4xx. 400 only when the body is not JSON",
      requestBody: {
        required: true,
        content: {
          'application/json': {
            // Any JSON is judged (a list, a string): only the answer says whether it is a flow.
            schema: { description: 'any JSON value: a flow (docs/flows.md), valid or not' },
          },
        },
      },
      responses: {
        200: answer('The verdict', {
          type: 'object',
          required: ['ok', 'problems', 'warnings'],
          properties: { ok: { type: 'boolean' }, problems, warnings: problems },
        }),
        '4XX': error,
      },
    },
  },
  '/v2/bots/{app_id}/flow': {
    get: {
      ...admin,
      summary: "The bot's current (published) flow version and its draft, if any",
      parameters: [appId],
      responses: {
        200: answer('Published and draft', {
          type: 'object',
          required: ['published', 'draft'],
          properties: { published, draft: { anyOf: [draft, { type: 'null' }] } },
        }),
        '4XX': error,
      },
    },
  },
  '/v2/bots/{app_id}/flow/draft': {
    put: {
      ...admin,
      summary: "Save the bot's draft; saved even when invalid, its problems and warnings returned",
      parameters: [appId],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/flow-draft' } } },
      },
      responses: { 200: answer('The draft', draft), '4XX': error },
    },
    delete: {
      ...admin,
      summary: "Discard the bot's draft (204 also when there was none)",
      parameters: [appId],
      responses: { 204: { description: 'No draft now' }, '4XX': error },
    },
  },
  '/v2/bots/{app_id}/flow/publish': {
    post: {
      ...admin,
      summary:
        "Publish the draft as the next version, which becomes current, once the bot's conversation tests pass on it; 422 BW_ERR_FLOW_INVALID (details.problems) when it is invalid, 409 BW_ERR_NO_DRAFT without one, 409 BW_ERR_TESTS_FAILED (details.run, details.may_override) when a test fails, 503 BW_ERR_TESTS_UNAVAILABLE when they cannot be run, 409 BW_ERR_DRAFT_CHANGED when the draft was saved while they ran; owners may publish anyway with override_tests",
      parameters: [appId],
      requestBody: {
        required: false,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/publish-flow' } } },
      },
      responses: {
        201: answer('The new current version', {
          ...madeCurrent,
          required: [...madeCurrent.required, 'tests'],
          properties: {
            ...madeCurrent.properties,
            tests: {
              oneOf: [testRunSchema, { type: 'null' }],
              description: "the conversation tests' run on the draft; null when the bot has none",
            },
          },
        }),
        '4XX': error,
        503: error,
      },
    },
  },
  '/v2/bots/{app_id}/flow/versions': {
    get: {
      ...admin,
      summary: 'Published versions, newest first, with the states each changed',
      parameters: [appId, ...page],
      responses: {
        200: answer('A page', {
          type: 'object',
          required: ['items', 'next_after'],
          properties: {
            items: { type: 'array', items: listed },
            next_after: { type: ['string', 'null'] },
          },
        }),
        '4XX': error,
      },
    },
  },
  '/v2/bots/{app_id}/flow/versions/{version}': {
    get: {
      ...admin,
      parameters: [appId, versionParam],
      responses: { 200: answer('The version', version), '4XX': error },
    },
  },
  '/v2/bots/{app_id}/flow/versions/{version}/publish': {
    post: {
      ...admin,
      summary:
        'Roll back (or forward): this version becomes current, no new version is written; 422 BW_ERR_FLOW_INVALID when it no longer validates',
      parameters: [appId, versionParam],
      responses: { 200: answer('The version, now current', madeCurrent), '4XX': error },
    },
  },
  '/v2/bots/{app_id}/flow/llm-usage': {
    get: {
      ...admin,
      summary:
        'Tokens the bot\'s llm steps used today (UTC) and its daily budget (the lower of FLOW_LLM_DAILY_TOKENS and the current flow\'s llm.daily_tokens); docs/flows.md, "The llm step"',
      parameters: [appId],
      responses: {
        200: answer("Today's use", {
          type: 'object',
          required: ['day', 'tokens', 'daily_budget'],
          properties: {
            day: { type: 'string', description: 'YYYY-MM-DD, UTC' },
            tokens: { type: 'integer', minimum: 0, description: 'reserved and used so far' },
            daily_budget: { type: 'integer', minimum: 0 },
          },
        }),
        '4XX': error,
      },
    },
  },
  '/v2/bots/{app_id}/flow/impact': {
    get: {
      ...admin,
      summary:
        'Conversations now waiting in a state the candidate flow (a version, or the draft) does not have: they would start over at start on their next turn',
      parameters: [
        appId,
        {
          name: 'version',
          in: 'query',
          required: true,
          schema: { type: 'string', pattern: '^([1-9][0-9]*|draft)$' },
          description: 'a version number, or draft',
        },
      ],
      responses: {
        200: answer('Counts by removed state', {
          type: 'object',
          required: ['removed_states', 'conversations'],
          properties: {
            removed_states: {
              type: 'array',
              items: {
                type: 'object',
                required: ['state', 'conversations'],
                properties: { state: { type: 'string' }, conversations: { type: 'integer' } },
              },
            },
            conversations: { type: 'integer', description: 'the total' },
          },
        }),
        '4XX': error,
      },
    },
  },
};
