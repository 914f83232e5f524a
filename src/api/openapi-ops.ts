/**
 * OpenAPI paths of the operations routes, the conversation list with its filters, one
 * conversation, and the collection list and jobs; spread into the document by openapi.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOPICS } from '../shared/bus/topics.ts';
import { SCHEMAS_DIR } from '../shared/schemas.ts';
import {
  collectionItem,
  conversation,
  conversationItem,
  deadLetter,
  jobSummary,
  nullable,
  time,
} from './openapi-ops-schemas.ts';
import { admin, answer, error, page } from './openapi-parts.ts';

const pageOf = (item: Record<string, unknown>) => ({
  type: 'object',
  required: ['items', 'next_after'],
  properties: {
    items: { type: 'array', items: item },
    next_after: {
      ...nullable({ type: 'string' }),
      description: 'pass as `after` for the next page',
    },
  },
});
const uuidPath = (name: string) => ({
  name,
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
});
const topicPath = { name: 'topic', in: 'path', required: true, schema: { enum: [...TOPICS] } };
const collectionPath = {
  name: 'name',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$' },
};

function querySchema(): Record<string, Record<string, unknown>> {
  const loaded = JSON.parse(
    readFileSync(join(SCHEMAS_DIR, 'http/conversations-query.json'), 'utf8'),
  ) as { properties: Record<string, Record<string, unknown>> };
  return loaded.properties;
}

/** Request body schemas of these paths, for `components.schemas`. */
export function opsSchemas(): Record<string, unknown> {
  return {
    'replay-dead-letters': JSON.parse(
      readFileSync(join(SCHEMAS_DIR, 'http/replay-dead-letters.json'), 'utf8'),
    ) as unknown,
  };
}

export function opsPaths(): Record<string, unknown> {
  const filters = querySchema();
  return {
    '/v2/ops/processes': {
      get: {
        ...admin,
        summary:
          'Processes of each component and when each was last seen (from the live-member sets their heartbeats keep in Redis)',
        responses: {
          200: answer('Every component, each with its processes', {
            type: 'object',
            required: ['components'],
            properties: {
              components: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['component', 'processes'],
                  properties: {
                    component: { enum: ['api', ...TOPICS] },
                    processes: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['name', 'last_seen', 'alive'],
                        properties: {
                          name: { type: 'string', description: 'CONSUMER_NAME of the process' },
                          last_seen: time,
                          alive: {
                            type: 'boolean',
                            description: 'its last heartbeat has not run out',
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          }),
          '4XX': error,
        },
      },
    },
    '/v2/ops/topics': {
      get: {
        ...admin,
        summary: 'What waits in each topic, and its dead letters',
        responses: {
          200: answer('Every topic', {
            type: 'object',
            required: ['topics'],
            properties: {
              topics: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['topic', 'backlog', 'pending', 'dead_letters'],
                  properties: {
                    topic: { enum: [...TOPICS] },
                    backlog: { type: 'integer', description: 'unread + pending' },
                    unread: { type: 'integer', description: 'not read by its component yet' },
                    pending: { type: 'integer', description: 'read, not acknowledged yet' },
                    dead_letters: { type: 'integer' },
                  },
                },
              },
            },
          }),
          '4XX': error,
        },
      },
    },
    '/v2/ops/bots': {
      get: {
        ...admin,
        summary:
          "What waits for each bot now: its backlog as the edge's backpressure counts it (turns in flight and parked replies), and per channel the replies parked behind its circuit breaker, whether the breaker is open and for how long yet, and the failed platform calls in its window; the replies the platforms refused today, by code; bots with something waiting first",
        responses: {
          200: answer('Every bot the caller may see', {
            type: 'object',
            required: ['bots'],
            properties: {
              bots: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['app_id', 'name', 'backlog', 'waiting', 'channels', 'refused_today'],
                  properties: {
                    app_id: { type: 'string' },
                    name: { type: 'string' },
                    backlog: {
                      type: 'integer',
                      description: 'turns in flight plus parked replies',
                    },
                    waiting: {
                      type: 'boolean',
                      description:
                        'something waits: a backlog, parked replies, an open breaker or failed platform calls',
                    },
                    channels: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['id', 'type', 'parked', 'breaker', 'open_ms', 'failures'],
                        properties: {
                          id: { type: 'string', format: 'uuid' },
                          type: { type: 'string' },
                          parked: {
                            type: 'integer',
                            description: 'replies waiting for the platform',
                          },
                          breaker: { enum: ['open', 'closed'] },
                          open_ms: { type: 'integer', description: 'how long it stays open yet' },
                          failures: { type: 'integer', description: 'failed calls in its window' },
                        },
                      },
                    },
                    refused_today: {
                      type: 'array',
                      description:
                        "replies the platforms refused today (UTC), by channel type and the platform's code, most first",
                      items: {
                        type: 'object',
                        required: ['channel_type', 'code', 'count'],
                        properties: {
                          channel_type: { type: 'string' },
                          code: { type: 'string' },
                          count: { type: 'integer', minimum: 1 },
                        },
                      },
                    },
                  },
                },
              },
            },
          }),
          '4XX': error,
        },
      },
    },
    '/v2/ops/dead-letters/{topic}': {
      get: {
        ...admin,
        summary: "A topic's dead letters, oldest first",
        parameters: [topicPath, ...page],
        responses: { 200: answer('A page of dead letters', pageOf(deadLetter)), '4XX': error },
      },
    },
    '/v2/ops/dead-letters/{topic}/{id}': {
      get: {
        ...admin,
        parameters: [
          topicPath,
          {
            name: 'id',
            in: 'path',
            required: true,
            description: 'a listed id, p<n>-<ms>-<seq>; any other names no dead letter (404)',
            schema: { type: 'string' },
          },
        ],
        responses: { 200: answer('The dead letter', deadLetter), '4XX': error },
      },
    },
    '/v2/ops/dead-letters/{topic}/replay': {
      post: {
        ...admin,
        summary:
          'Put dead letters back on their topic (as ./scripts/dead-letters.sh replay does); each goes back once, and one that still fails the topic schema is refused and kept',
        parameters: [topicPath],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/replay-dead-letters' },
            },
          },
        },
        responses: {
          200: answer('What was replayed and what was refused', {
            type: 'object',
            required: ['replayed', 'replayed_ids', 'refused', 'refused_count'],
            properties: {
              replayed: { type: 'integer' },
              replayed_ids: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'new_id'],
                  properties: {
                    id: { type: 'string', description: 'the dead letter' },
                    new_id: { type: 'string', description: 'its new entry in the topic' },
                  },
                },
              },
              refused: {
                type: 'array',
                description: 'at most 1000; refused_count has them all',
                items: {
                  type: 'object',
                  required: ['id', 'code', 'reason'],
                  properties: {
                    id: { type: 'string' },
                    code: {
                      enum: [
                        'BW_ERR_NOT_FOUND',
                        'BW_ERR_MESSAGE_MALFORMED',
                        'BW_ERR_MESSAGE_INVALID',
                        'BW_ERR_CONFLICT',
                      ],
                    },
                    reason: { type: 'string' },
                  },
                },
              },
              refused_count: { type: 'integer' },
            },
          }),
          '4XX': error,
        },
      },
    },
    '/v2/bots/{app_id}/conversations': {
      get: {
        ...admin,
        summary: "A bot's conversations, newest activity first, filtered",
        description:
          '`last_message_at` is kept to the minute: it is rewritten only when over a minute old (docs/pipeline.md). Filters apply together; `q` matches words of the messages (docs/edge.md, "Conversations").',
        parameters: [
          uuidPath('app_id'),
          ...page,
          ...['channel_type', 'chat_id', 'from', 'to', 'q'].map((name) => {
            const { description, ...schema } = filters[name] ?? {};
            return { name, in: 'query', description, schema };
          }),
        ],
        responses: {
          200: answer('A page of conversations', pageOf(conversationItem)),
          '4XX': error,
        },
      },
    },
    '/v2/conversations/{id}': {
      get: {
        ...admin,
        summary: 'One conversation with its flow state and variables',
        parameters: [uuidPath('id')],
        responses: { 200: answer('The conversation', conversation), '4XX': error },
      },
    },
    '/v2/collections': {
      get: {
        ...admin,
        summary: 'Knowledge collections by name: indexed ones, and ones with uploads only',
        parameters: page,
        responses: { 200: answer('A page of collections', pageOf(collectionItem)), '4XX': error },
      },
    },
    '/v2/collections/{name}/jobs': {
      get: {
        ...admin,
        summary:
          "A collection's indexing jobs, newest first (GET /v2/index-jobs/{job_id} has each file)",
        parameters: [collectionPath, ...page],
        responses: { 200: answer('A page of jobs', pageOf(jobSummary)), '4XX': error },
      },
    },
  };
}
