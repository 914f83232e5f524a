/**
 * OpenAPI path of the bot writing first (`outbound/routes.ts`; docs/outbound.md). The body is the
 * component `send-message` (schemas/http/send-message.json, the schema the route checks).
 */
import { admin, answer, appId, error } from './openapi-parts.ts';

const template = {
  type: 'object',
  required: ['channel_id', 'name', 'language', 'category', 'status', 'components', 'parameters'],
  properties: {
    channel_id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    language: { type: 'string' },
    category: { type: 'string', description: 'MARKETING, UTILITY or AUTHENTICATION' },
    status: { type: 'string', description: 'APPROVED is the only one sent' },
    components: { type: 'array', items: { type: 'object' }, description: "Meta's, as synced" },
    parameters: {
      type: 'object',
      required: ['header', 'body', 'header_media', 'buttons'],
      description:
        'what a send gives it: texts for its header and body, a link for its media header, an address end for each URL button ending in a placeholder',
      properties: {
        header: { type: 'integer' },
        body: { type: 'integer' },
        header_media: {
          type: ['string', 'null'],
          enum: ['image', 'video', 'document', null],
          description: 'the media its header shows (parameters.header_media.link); null for none',
        },
        buttons: { type: 'integer', description: 'texts of parameters.buttons' },
      },
    },
    synced_at: { type: 'string', format: 'date-time' },
  },
};

export const outboundPaths = {
  '/v2/bots/{app_id}/messages': {
    post: {
      ...admin,
      summary:
        "The bot writes first: one message to a user who has a conversation with it, or on WhatsApp a template to any number (by channel_id and chat_id; its conversation is opened). The same idempotency_key sends once and answers the first result (duplicate: true); another request under it is 409 BW_ERR_IDEMPOTENCY_MISMATCH. On WhatsApp, a free-form message more than 24 hours after the user's last message is 422 BW_ERR_WINDOW_CLOSED; an approved template goes at any time, its parameters checked first (422 BW_ERR_TEMPLATE), unless it starts a conversation the number's daily messaging limit has no room for (429 BW_ERR_MESSAGING_LIMIT). Accepted for sending (202): the transcript row says sent or failed",
      parameters: [appId],
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/send-message' } } },
      },
      responses: {
        202: answer('Accepted: published to channel, in the conversation’s order', {
          type: 'object',
          required: ['turn_id', 'conversation_id', 'duplicate'],
          properties: {
            turn_id: { type: 'string', description: 'the transcript rows of the message carry it' },
            conversation_id: { type: 'string', format: 'uuid' },
            duplicate: {
              type: 'boolean',
              description: 'the key was used before: nothing more is sent',
            },
          },
        }),
        '4XX': error,
      },
    },
  },
  '/v2/bots/{app_id}/templates/sync': {
    post: {
      ...admin,
      summary:
        "Reads the WhatsApp message templates of each WhatsApp channel's Business Account (its business_account_id) and keeps them as they are there; a channel without one is named, not synced. 502 BW_ERR_UPSTREAM when Meta cannot be read",
      parameters: [appId],
      responses: {
        200: answer('What each WhatsApp channel got', {
          type: 'object',
          required: ['channels'],
          properties: {
            channels: {
              type: 'array',
              items: {
                type: 'object',
                required: ['channel_id', 'synced'],
                properties: {
                  channel_id: { type: 'string', format: 'uuid' },
                  synced: { type: 'boolean' },
                  templates: { type: 'integer' },
                  reason: { type: 'string' },
                },
              },
            },
          },
        }),
        '4XX': error,
        '5XX': error,
      },
    },
  },
  '/v2/bots/{app_id}/templates': {
    get: {
      ...admin,
      summary: "The bot's WhatsApp templates as last synced, with the parameters each takes",
      parameters: [appId],
      responses: {
        200: answer('The templates', {
          type: 'object',
          required: ['items'],
          properties: { items: { type: 'array', items: template } },
        }),
        '4XX': error,
      },
    },
  },
};
