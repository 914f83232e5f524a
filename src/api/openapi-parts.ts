/** The pieces every part of the OpenAPI description (src/api/openapi*.ts) is made of. */

/** Every 4xx and 5xx answer: `{"error": {"code", "message"}}`. */
export const error = { $ref: '#/components/responses/error' };

/** An admin route: the bearer key, or a console session cookie (docs/console.md). */
export const admin = { security: [{ bearer: [] }, { session: [] }] };

/** The `limit` and `after` query parameters of a paged list. */
export const page = [
  {
    name: 'limit',
    in: 'query',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
  {
    name: 'after',
    in: 'query',
    schema: { type: 'string' },
    description: 'next_after of the previous page',
  },
];

/** The bot's id in a path. */
export const appId = {
  name: 'app_id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};

/** A JSON answer with this schema. */
export const answer = (description: string, schema: Record<string, unknown>) => ({
  description,
  content: { 'application/json': { schema } },
});

/** A JSON answer whose schema is the component `ref`. */
export const returns = (description: string, ref: string) =>
  answer(description, { $ref: `#/components/schemas/${ref}` });

/** Where a resumable web event stream (a visitor's, a test chat's) goes on from. */
export const resumeFrom = [
  {
    name: 'Last-Event-ID',
    in: 'header',
    description: 'read strictly after this event id',
    schema: { type: 'string', pattern: '^[0-9]+-[0-9]+$' },
  },
  {
    name: 'last_event_id',
    in: 'query',
    description: 'as Last-Event-ID, for clients that cannot set it',
    schema: { type: 'string', pattern: '^[0-9]+-[0-9]+$' },
  },
];
