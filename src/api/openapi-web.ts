/** The web channel's part of the OpenAPI description (docs/web-channel.md). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMAS_DIR } from '../shared/schemas.ts';
import { appId, error, resumeFrom } from './openapi-parts.ts';

function body(name: string): Record<string, unknown> {
  const schema = JSON.parse(readFileSync(join(SCHEMAS_DIR, `${name}.json`), 'utf8')) as Record<
    string,
    unknown
  >;
  return { required: true, content: { 'application/json': { schema } } };
}

const origin = {
  name: 'Origin',
  in: 'header',
  description:
    "Must be one of the channel's allowed_origins or the service's own origin when present (403 BW_ERR_ORIGIN_REFUSED otherwise)",
  schema: { type: 'string' },
};
const visitor = { security: [{ visitor: [] }] };

const button = {
  type: 'object',
  required: ['id', 'title'],
  properties: { id: { type: 'string' }, title: { type: 'string' } },
};

/** What one SSE `message` event's data holds (`WebEvent` in src/shared/web/visitor-stream.ts). */
const webEvent = {
  type: 'object',
  required: ['id', 'conversation_id', 'direction', 'turn_id', 'message_type', 'created_at'],
  properties: {
    id: {
      type: 'string',
      description: 'stable message id: out:<turn_id>:<call> or in:<client_message_id>',
    },
    conversation_id: { type: 'string', format: 'uuid' },
    direction: { enum: ['in', 'out'] },
    turn_id: { type: 'string' },
    message_type: {
      enum: ['text', 'button', 'option_list', 'image', 'document', 'interactive_reply'],
    },
    text: { type: 'string' },
    buttons: { type: 'array', items: button },
    list: {
      type: 'object',
      required: ['button', 'sections'],
      properties: {
        button: { type: 'string' },
        sections: {
          type: 'array',
          items: {
            type: 'object',
            required: ['rows'],
            properties: {
              title: { type: 'string' },
              rows: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['id', 'title'],
                  properties: {
                    id: { type: 'string' },
                    title: { type: 'string' },
                    description: { type: 'string' },
                  },
                },
              },
            },
          },
        },
      },
    },
    image: {
      type: 'object',
      required: ['url'],
      properties: { url: { type: 'string' }, caption: { type: 'string' } },
    },
    document: {
      type: 'object',
      required: ['url'],
      properties: {
        url: { type: 'string' },
        filename: { type: 'string' },
        caption: { type: 'string' },
      },
    },
    choice_id: { type: 'string', description: 'direction in: the button or row the visitor chose' },
    created_at: { type: 'string', format: 'date-time' },
  },
};

/** Components the web paths use; spread into `components.schemas`. */
export const webSchemas = { 'web-event': webEvent };

/** A visitor token (signed, `WEB_TOKEN_TTL_S`); spread into `components.securitySchemes`. */
export const webSecuritySchemes = {
  visitor: {
    type: 'http',
    scheme: 'bearer',
    description: 'A web visitor token from POST /v2/web/{app_id}/sessions',
  },
};

export const webPaths = {
  '/v2/web/{app_id}/sessions': {
    post: {
      summary: "Start a web visitor's session, or renew it with the current token",
      parameters: [appId, origin],
      requestBody: body('http/web-session'),
      responses: {
        201: {
          description: 'The visitor and a token for them',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['visitor_id', 'token', 'expires_at', 'conversation_id'],
                properties: {
                  visitor_id: { type: 'string' },
                  token: { type: 'string' },
                  expires_at: { type: 'string', format: 'date-time' },
                  conversation_id: { type: ['string', 'null'], format: 'uuid' },
                },
              },
            },
          },
        },
        '4XX': error,
        503: error,
      },
    },
  },
  '/v2/callback/web/{app_id}': {
    post: {
      ...visitor,
      summary: "A web visitor's message, once per client_message_id",
      parameters: [appId, origin],
      requestBody: body('http/web-message'),
      responses: {
        202: {
          description: 'Accepted (duplicate: this client_message_id was accepted before)',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['accepted', 'duplicate'],
                properties: { accepted: { const: true }, duplicate: { type: 'boolean' } },
              },
            },
          },
        },
        '4XX': error,
        503: error,
      },
    },
  },
  '/v2/web/{app_id}/events': {
    get: {
      ...visitor,
      summary:
        "The visitor's messages as Server-Sent Events (event: message, id: <stream id>, data: web-event; event: typing while an agent types during a handoff, data: {event, conversation_id, at}); resumable",
      parameters: [
        appId,
        origin,
        {
          name: 'token',
          in: 'query',
          description: 'the visitor token (EventSource cannot send headers)',
          schema: { type: 'string' },
        },
        ...resumeFrom,
      ],
      responses: {
        200: {
          description:
            'text/event-stream; each event\'s data is a web-event; ": keep-alive" comments every 15 s',
          content: { 'text/event-stream': { schema: { $ref: '#/components/schemas/web-event' } } },
        },
        '4XX': error,
        503: error,
      },
    },
  },
  '/v2/web/widget.js': {
    get: {
      summary: 'The embeddable chat widget (<script src=… data-app-id=… async>)',
      responses: {
        200: {
          description: 'JavaScript, cached for an hour',
          content: { 'application/javascript': { schema: { type: 'string' } } },
        },
        304: { description: 'Not modified (If-None-Match)' },
      },
    },
  },
};
