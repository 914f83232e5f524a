/**
 * OpenAPI paths of the console's test chats (`test-chats/routes.ts`; docs/console.md, "Test
 * chat"). Spread into the document's `paths`; the bodies are the components `test-chat` and
 * `test-chat-message`, the events the web channel's `web-event`.
 */
import { admin, answer, appId, error, resumeFrom } from './openapi-parts.ts';

const chatId = {
  name: 'chat_id',
  in: 'path',
  required: true,
  schema: { type: 'string', pattern: '^t_[A-Za-z0-9_-]{1,64}$' },
};
const body = (ref: string) => ({
  required: true,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
});
const source = {
  oneOf: [
    {
      type: 'object',
      required: ['draft'],
      properties: { draft: { type: 'integer', description: "the draft's revision" } },
    },
    { type: 'object', required: ['version'], properties: { version: { type: 'integer' } } },
  ],
};

export const testChatPaths = {
  '/v2/bots/{app_id}/test-chats': {
    post: {
      ...admin,
      summary:
        "Start a test chat running the draft (the default), the current version or a version, through the whole pipeline on the bot's console channel, whatever its channels; 422 BW_ERR_FLOW_INVALID for a flow that could not be published",
      parameters: [appId],
      requestBody: body('test-chat'),
      responses: {
        201: answer('The test chat', {
          type: 'object',
          required: ['chat_id', 'source', 'created_by', 'created_at', 'messages_url', 'events_url'],
          properties: {
            chat_id: { type: 'string' },
            source,
            created_by: { type: 'string' },
            created_at: { type: 'string', format: 'date-time' },
            messages_url: { type: 'string' },
            events_url: { type: 'string' },
          },
        }),
        '4XX': error,
        503: error,
      },
    },
  },
  '/v2/bots/{app_id}/test-chats/{chat_id}/messages': {
    post: {
      ...admin,
      summary: "An operator's message in a test chat, once per client_message_id",
      parameters: [appId, chatId],
      requestBody: body('test-chat-message'),
      responses: {
        202: answer('Accepted (duplicate: this client_message_id was accepted before)', {
          type: 'object',
          required: ['accepted', 'duplicate'],
          properties: { accepted: { const: true }, duplicate: { type: 'boolean' } },
        }),
        '4XX': error,
        503: error,
      },
    },
  },
  '/v2/bots/{app_id}/test-chats/{chat_id}/events': {
    get: {
      ...admin,
      summary:
        "The test chat's messages as Server-Sent Events, as a web visitor's stream (event: message, data: web-event); resumable with Last-Event-ID or last_event_id",
      parameters: [appId, chatId, ...resumeFrom],
      responses: {
        200: {
          description: "text/event-stream; each event's data is a web-event",
          content: { 'text/event-stream': { schema: { $ref: '#/components/schemas/web-event' } } },
        },
        '4XX': error,
        503: error,
      },
    },
  },
};
