/**
 * OpenAPI path and schema of the audit log (`GET /v2/audit`, src/api/audit/route.ts;
 * docs/audit.md). Spread into the document by openapi.ts.
 */
import { AUDIT_COLUMNS } from './audit/store.ts';
import { nullable, time } from './openapi-ops-schemas.ts';
import { admin, error, page, returns } from './openapi-parts.ts';

const auditEntry = {
  type: 'object',
  required: [...AUDIT_COLUMNS],
  properties: {
    id: { type: 'string', description: 'row id; newer rows have larger ids' },
    at: time,
    actor: {
      type: 'string',
      description: 'who made the change: "admin-key", "console", "account:<email>", ...',
    },
    account_id: {
      ...nullable({ type: 'string', format: 'uuid' }),
      description: 'null for the admin key',
    },
    address: { type: 'string', description: 'the peer address of the connection' },
    action: { type: 'string', description: 'e.g. bot.update, flow.publish (docs/audit.md)' },
    target_type: { type: 'string', description: 'bot, channel, flow, collection, topic, session' },
    target_id: nullable({ type: 'string' }),
    app_id: { ...nullable({ type: 'string', format: 'uuid' }), description: 'the bot concerned' },
    summary: {
      type: 'object',
      description: 'what changed, with every secret removed',
      properties: { before: { type: 'object' }, after: { type: 'object' } },
    },
  },
};

export const auditSchemas = {
  'audit-entry': auditEntry,
  'audit-page': {
    type: 'object',
    required: ['items', 'next_after'],
    properties: {
      items: { type: 'array', items: { $ref: '#/components/schemas/audit-entry' } },
      next_after: {
        ...nullable({ type: 'string' }),
        description: 'pass as `after` for the next page',
      },
    },
  },
};

const text = (name: string, description: string) => ({
  name,
  in: 'query',
  schema: { type: 'string' },
  description,
});

export const auditPaths = {
  '/v2/audit': {
    get: {
      summary: 'The audit log: every change made through the admin API, newest first',
      ...admin,
      parameters: [
        text('actor', 'only changes by this actor (exact)'),
        text('action', 'only this action (exact), e.g. bot.update'),
        { name: 'app_id', in: 'query', schema: { type: 'string', format: 'uuid' } },
        {
          name: 'since',
          in: 'query',
          schema: { type: 'string', format: 'date-time' },
          description: 'changes at or after this time',
        },
        {
          name: 'until',
          in: 'query',
          schema: { type: 'string', format: 'date-time' },
          description: 'changes before this time',
        },
        ...page,
      ],
      responses: { 200: returns('A page of audit rows', 'audit-page'), default: error },
    },
  },
};
