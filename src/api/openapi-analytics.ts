/**
 * OpenAPI path of a bot's analytics (`analytics/routes.ts`; docs/analytics.md). Its query
 * parameters come from `schemas/http/analytics-query.json`, the schema the route checks.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMAS_DIR } from '../shared/schemas.ts';
import { BOT_COUNTERS, STATE_COUNTERS } from '../shared/analytics-counters.ts';
import { admin, appId, error } from './openapi-parts.ts';

function queryParameters(): Record<string, unknown>[] {
  const schema = JSON.parse(
    readFileSync(join(SCHEMAS_DIR, 'http/analytics-query.json'), 'utf8'),
  ) as { properties: Record<string, { description?: string } & Record<string, unknown>> };
  return Object.entries(schema.properties).map(([name, { description, ...rest }]) => ({
    name,
    in: 'query',
    description,
    schema: rest,
  }));
}

const integers = (names: readonly string[]) =>
  Object.fromEntries(names.map((n) => [n, { type: 'integer', minimum: 0 }]));
const counters = {
  type: 'object',
  required: [...BOT_COUNTERS],
  properties: integers(BOT_COUNTERS),
};
const rate = { type: ['number', 'null'], minimum: 0, maximum: 1 };
const timing = (description: string) => ({
  type: 'object',
  description: `${description}; milliseconds, each within 5 % (log-scale buckets), null when count is 0`,
  required: ['count', 'median', 'p90'],
  properties: {
    count: { type: 'integer', minimum: 0 },
    median: { type: ['integer', 'null'] },
    p90: { type: ['integer', 'null'] },
  },
});
const service = {
  type: ['object', 'null'],
  description: 'The service users got; null with a language or version filter',
  required: ['bot_response_ms', 'agent_first_reply_ms', 'handoffs_ended', 'send_failures'],
  properties: {
    bot_response_ms: timing(
      "From a user's message to the platform accepting the bot's first reply to it",
    ),
    agent_first_reply_ms: timing("From a handoff's start to an agent's first reply"),
    handoffs_ended: {
      type: 'object',
      required: ['closed', 'returned', 'timed_out', 'resolved_by_agent'],
      properties: {
        ...integers(['closed', 'returned', 'timed_out']),
        resolved_by_agent: rate,
      },
    },
    send_failures: {
      type: 'array',
      description: "Replies a platform refused, by the platform's code, most first",
      items: {
        type: 'object',
        required: ['code', 'count'],
        properties: { code: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
      },
    },
  },
};
const grouped = (key: string, schema: Record<string, unknown>) => ({
  type: 'array',
  items: {
    allOf: [counters, { type: 'object', required: [key], properties: { [key]: schema } }],
  },
});

export const analyticsPaths = {
  '/v2/bots/{app_id}/analytics': {
    get: {
      ...admin,
      summary:
        "The bot's figures over a range of days (UTC), from rollups kept as turns happen: totals, rates, by day, channel type, language and flow version, per state with its drop-off, and the service users got (response times, handoff outcomes, send failures by code); test chats are never counted. format=csv gives one row per day, channel type, language and version (rows=states: per state)",
      parameters: [appId, ...queryParameters()],
      responses: {
        200: {
          description: 'The figures',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: [
                  'app_id',
                  'from',
                  'to',
                  'filters',
                  'totals',
                  'rates',
                  'by_day',
                  'by_channel',
                  'by_language',
                  'by_version',
                  'states',
                  'service',
                ],
                properties: {
                  app_id: { type: 'string' },
                  from: { type: 'string', format: 'date' },
                  to: { type: 'string', format: 'date' },
                  filters: { type: 'object' },
                  totals: {
                    allOf: [
                      counters,
                      {
                        type: 'object',
                        required: ['users', 'returning_users'],
                        properties: {
                          users: { type: ['integer', 'null'] },
                          returning_users: { type: ['integer', 'null'] },
                        },
                      },
                    ],
                  },
                  rates: {
                    type: 'object',
                    required: ['completion', 'did_not_understand', 'handoff'],
                    properties: { completion: rate, did_not_understand: rate, handoff: rate },
                  },
                  by_day: grouped('day', { type: 'string', format: 'date' }),
                  by_channel: grouped('channel_type', { type: 'string' }),
                  by_language: grouped('language', { type: 'string' }),
                  by_version: grouped('flow_version', { type: 'integer' }),
                  states: {
                    type: 'array',
                    items: {
                      type: 'object',
                      required: ['state', ...STATE_COUNTERS, 'abandoned'],
                      properties: {
                        state: { type: 'string' },
                        ...integers([...STATE_COUNTERS, 'abandoned']),
                      },
                    },
                  },
                  service,
                },
              },
            },
            'text/csv': { schema: { type: 'string' } },
          },
        },
        400: error,
        401: error,
        403: error,
        404: error,
      },
    },
  },
};
