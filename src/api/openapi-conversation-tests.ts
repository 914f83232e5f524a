/**
 * OpenAPI paths of a bot's conversation tests (`conversation-tests/routes.ts`; docs/flows.md,
 * "Conversation tests"). Spread into the document's `paths`; the bodies are the components
 * `conversation-test`, `tests-run` and `test-from-chat`.
 */
import { admin, answer, appId, error } from './openapi-parts.ts';

const name = {
  name: 'name',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9 ._-]{0,99}$' },
};
const body = (ref: string) => ({
  required: true,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
});
const test = { $ref: '#/components/schemas/conversation-test' };
const saved = {
  type: 'object',
  required: ['name', 'test'],
  properties: { name: { type: 'string' }, test },
};
const failure = {
  type: 'object',
  required: ['step', 'where', 'message'],
  properties: {
    step: { type: 'integer' },
    expectation: { type: 'integer' },
    where: { type: 'string', description: 'steps[1].expect[0] text_equals "…"' },
    message: { type: 'string' },
  },
};
/** A run's results; the publish route's refusal carries one as `details.run`. */
export const testRunSchema = {
  type: 'object',
  required: ['passed', 'failed', 'duration_ms', 'tests'],
  properties: {
    passed: { type: 'integer' },
    failed: { type: 'integer' },
    duration_ms: { type: 'integer' },
    tests: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'passed', 'duration_ms', 'failures', 'steps'],
        properties: {
          name: { type: 'string' },
          passed: { type: 'boolean' },
          duration_ms: { type: 'integer' },
          failures: { type: 'array', items: failure },
          steps: {
            type: 'array',
            description: "what each step did: the bot's replies, the state after it",
            items: { type: 'object' },
          },
        },
      },
    },
  },
};

export const conversationTestPaths = {
  '/v2/bots/{app_id}/tests': {
    get: {
      ...admin,
      summary: "The bot's conversation tests, by name",
      parameters: [appId],
      responses: {
        200: answer('The tests', {
          type: 'object',
          required: ['items'],
          properties: {
            items: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'test', 'updated_by', 'updated_at'],
                properties: {
                  name: { type: 'string' },
                  test,
                  updated_by: { type: 'string' },
                  updated_at: { type: 'string', format: 'date-time' },
                },
              },
            },
          },
        }),
        '4XX': error,
      },
    },
  },
  '/v2/bots/{app_id}/tests/{name}': {
    put: {
      ...admin,
      summary: 'Write a conversation test (201 new, 200 replaced); the path names it',
      parameters: [appId, name],
      requestBody: body('conversation-test'),
      responses: { 200: answer('Replaced', saved), 201: answer('Made', saved), '4XX': error },
    },
    delete: {
      ...admin,
      summary: 'Delete a conversation test',
      parameters: [appId, name],
      responses: { 204: { description: 'Deleted' }, '4XX': error },
    },
  },
  '/v2/bots/{app_id}/tests/from-chat': {
    post: {
      ...admin,
      summary:
        "Save a test chat's conversation as a test: each input a step, each reply its text and options expected, the last step its state",
      parameters: [appId],
      requestBody: body('test-from-chat'),
      responses: { 200: answer('Replaced', saved), 201: answer('Made', saved), '4XX': error },
    },
  },
  '/v2/bots/{app_id}/tests/run': {
    post: {
      ...admin,
      summary:
        'Run the saved tests (or `names`) against the draft (the default), the current version or a version, on the flow engine with their stand-ins; `?format=junit` answers JUnit XML',
      parameters: [
        appId,
        { name: 'format', in: 'query', schema: { enum: ['json', 'junit'], default: 'json' } },
      ],
      requestBody: { ...body('tests-run'), required: false },
      responses: {
        200: {
          description: 'The results (a run with a failing test is still a 200)',
          content: {
            'application/json': {
              schema: {
                ...testRunSchema,
                required: ['app_id', 'flow', ...testRunSchema.required],
                properties: {
                  app_id: { type: 'string' },
                  flow: { type: 'object', description: '{"draft": revision} or {"version": n}' },
                  ...testRunSchema.properties,
                },
              },
            },
            'application/xml': { schema: { type: 'string', description: 'JUnit XML' } },
          },
        },
        '4XX': error,
        503: error,
      },
    },
  },
};
