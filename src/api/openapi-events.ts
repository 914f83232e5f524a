/**
 * The OpenAPI description of `GET /v2/events` (docs/events.md) and of its events' payloads, whose
 * schemas are the ones producers validate against (`schemas/events/*.json`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENT_TYPES } from '../shared/events/types.ts';
import { SCHEMAS_DIR } from '../shared/schemas.ts';
import { admin, error } from './openapi-parts.ts';

function eventSchema(type: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(SCHEMAS_DIR, 'events', `${type}.json`), 'utf8')) as Record<
    string,
    unknown
  >;
}

const ref = (type: string) => ({ $ref: `#/components/schemas/event-${type}` });

/** `components.schemas` entries: `event-<type>` per event type, and `event-reset`. */
export const eventSchemas: Record<string, unknown> = {
  ...Object.fromEntries(EVENT_TYPES.map((type) => [`event-${type}`, eventSchema(type)])),
  'event-reset': {
    title: 'reset event',
    description:
      'Sent first when the Last-Event-ID is older than the stream keeps (EVENTS_MAX_LEN) or ahead of it: events were missed, reload the lists. Its id is where the stream goes on from.',
    type: 'object',
    required: ['reason'],
    additionalProperties: false,
    properties: { reason: { type: 'string' } },
  },
};

export const eventsPaths: Record<string, unknown> = {
  '/v2/events': {
    get: {
      ...admin,
      summary: 'Live events for the console (Server-Sent Events)',
      description:
        'Each event: `id:` a stream id (send it back as Last-Event-ID to resume), `event:` its type (message, conversation, index-job, bot, dead-letter, handoff, reset), `data:` one JSON object (components event-<type>). A comment line every 15 s keeps the connection open. Best effort and bounded: see docs/events.md.',
      parameters: [
        {
          name: 'Last-Event-ID',
          in: 'header',
          schema: { type: 'string', pattern: '^[0-9]{1,20}-[0-9]{1,20}$' },
          description:
            'Resume after this event (EventSource sends it when it reconnects); wins over last_event_id. Without either, the stream starts from now.',
        },
        {
          name: 'last_event_id',
          in: 'query',
          schema: { type: 'string', pattern: '^[0-9]{1,20}-[0-9]{1,20}$' },
          description: 'Resume after this event, for a first connection.',
        },
        {
          name: 'app_id',
          in: 'query',
          schema: { type: 'array', items: { type: 'string', format: 'uuid' } },
          style: 'form',
          explode: true,
          description:
            'Only events of these bots (repeatable, or comma-separated); leaves out events of no bot (index-job, dead-letter).',
        },
        {
          name: 'types',
          in: 'query',
          schema: {
            type: 'array',
            items: { enum: [...EVENT_TYPES] },
          },
          style: 'form',
          explode: false,
          description: 'Only these event types, comma-separated (reset is always sent).',
        },
      ],
      responses: {
        200: {
          description: 'An endless text/event-stream; the events carry the payloads below.',
          content: {
            'text/event-stream': {
              schema: {
                type: 'string',
                description:
                  'id: <stream id>\\nevent: <type>\\ndata: <JSON payload>\\n\\n, repeated',
              },
              'x-event-payloads': Object.fromEntries(
                [...EVENT_TYPES, 'reset'].map((type) => [type, ref(type)]),
              ),
            },
          },
        },
        400: error,
        401: error,
        503: error,
      },
    },
  },
};
