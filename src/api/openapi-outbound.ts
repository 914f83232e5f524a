/**
 * OpenAPI path of the bot writing first (`outbound/routes.ts`; docs/outbound.md). The body is the
 * component `send-message` (schemas/http/send-message.json, the schema the route checks).
 */
import { admin, answer, appId, error } from './openapi-parts.ts';

export const outboundPaths = {
  '/v2/bots/{app_id}/messages': {
    post: {
      ...admin,
      summary:
        "The bot writes first: one message to a user who has a conversation with it. The same idempotency_key sends once and answers the first result (duplicate: true); another request under it is 409 BW_ERR_IDEMPOTENCY_MISMATCH. On WhatsApp, free text more than 24 hours after the user's last message is 422 BW_ERR_WINDOW_CLOSED. Accepted for sending (202): the transcript row says sent or failed",
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
};
