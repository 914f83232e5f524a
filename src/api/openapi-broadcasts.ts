/**
 * OpenAPI paths of broadcasts (`broadcasts/routes.ts`; docs/outbound.md). The body is the component
 * `create-broadcast` (schemas/http/create-broadcast.json, the schema the route checks).
 */
import { admin, answer, appId, error, returns } from './openapi-parts.ts';

const id = {
  name: 'id',
  in: 'path',
  required: true,
  schema: { type: 'string', format: 'uuid' },
};

const count = { type: 'integer', minimum: 0 };
const byReason = { type: 'object', additionalProperties: count };

/** A WhatsApp template broadcast against its number's messaging limit (made, or a dry run). */
const messagingLimit = {
  type: 'object',
  description:
    "a WhatsApp template broadcast: the number's messaging limit (users a day it may start conversations with), those it started in the 24 hours before the start, the recipients this one starts conversations with (their window closed), and the days it takes: what the limit has no room for today goes on over the following days",
  required: ['limit', 'used', 'starting', 'days'],
  properties: {
    limit: { oneOf: [count, { const: 'unlimited' }] },
    used: count,
    starting: count,
    days: {
      type: 'array',
      items: {
        type: 'object',
        required: ['from', 'users'],
        properties: { from: { type: 'string', format: 'date-time' }, users: count },
      },
    },
  },
};

export const broadcastSchemas = {
  broadcast: {
    type: 'object',
    required: ['id', 'app_id', 'channel_id', 'name', 'status', 'counts'],
    properties: {
      id: { type: 'string', format: 'uuid' },
      app_id: { type: 'string' },
      channel_id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      status: { enum: ['scheduled', 'running', 'paused', 'cancelled', 'finished'] },
      audience: { type: 'object', description: 'as asked; a CSV as {kind, rows}' },
      message: { type: 'object', description: 'as asked, with its placeholders' },
      flow_state: {
        type: ['string', 'null'],
        description: "the flow state recipients' answers go to; null: where each conversation is",
      },
      created_by: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
      start_at: { type: 'string', format: 'date-time' },
      started_at: { type: ['string', 'null'], format: 'date-time' },
      ended_at: { type: ['string', 'null'], format: 'date-time' },
      waiting_until: {
        type: ['string', 'null'],
        format: 'date-time',
        description:
          "running, but waiting until then for its WhatsApp number's messaging limit to have room",
      },
      messaging_limit: {
        ...messagingLimit,
        description: `when made: ${messagingLimit.description}`,
      },
      counts: {
        type: 'object',
        required: [
          'total',
          'queued',
          'sending',
          'sent',
          'delivered',
          'read',
          'failed',
          'unknown',
          'skipped',
          'skipped_by_reason',
          'failed_by_reason',
        ],
        description:
          'recipients by outcome: queued (not sent yet), sending (a call under way), sent (the platform took it; delivered and read of those, WhatsApp only), failed (refused), unknown (a process stopped during the call: not sent again), skipped (by reason: opted_out, window_closed, missing_value, invalid_value, no_conversation, duplicate, cancelled)',
        properties: {
          total: count,
          queued: count,
          sending: count,
          sent: count,
          delivered: count,
          read: count,
          failed: count,
          unknown: count,
          skipped: count,
          skipped_by_reason: byReason,
          failed_by_reason: byReason,
        },
      },
    },
  },
};

const move = (summary: string) => ({
  post: {
    ...admin,
    summary,
    parameters: [id],
    responses: {
      200: returns('The broadcast after the move', 'broadcast'),
      '4XX': error,
    },
  },
});

export const broadcastPaths = {
  '/v2/bots/{app_id}/broadcasts': {
    post: {
      ...admin,
      summary:
        'Makes a broadcast: the audience is fixed into recipients at once (each skipped one with its reason) and the broadcast starts at start_at, run by channel at the pace replies leave. With dry_run nothing is made and the answer counts who would get it. The message is checked as for one message (422 BW_ERR_TEMPLATE); a WhatsApp free-form message skips users whose window closed',
      parameters: [appId],
      requestBody: {
        required: true,
        content: {
          'application/json': { schema: { $ref: '#/components/schemas/create-broadcast' } },
        },
      },
      responses: {
        200: answer('A dry run: what the broadcast would do', {
          type: 'object',
          required: ['dry_run', 'total', 'will_send', 'skipped'],
          properties: {
            dry_run: { const: true },
            total: count,
            will_send: count,
            skipped: byReason,
            messaging_limit: messagingLimit,
          },
        }),
        201: returns('Made, and started for its start time', 'broadcast'),
        '4XX': error,
      },
    },
    get: {
      ...admin,
      summary: "The bot's broadcasts, newest first, with their counts",
      parameters: [appId, { name: 'limit', in: 'query', schema: { type: 'integer' } }],
      responses: {
        200: answer('Broadcasts', {
          type: 'object',
          required: ['items'],
          properties: {
            items: { type: 'array', items: { $ref: '#/components/schemas/broadcast' } },
          },
        }),
        '4XX': error,
      },
    },
  },
  '/v2/broadcasts/{id}': {
    get: {
      ...admin,
      summary: 'A broadcast and its progress',
      parameters: [id],
      responses: { 200: returns('The broadcast', 'broadcast'), '4XX': error },
    },
  },
  '/v2/broadcasts/{id}/pause': move(
    'Pauses a scheduled or running broadcast: calls waiting for their pace are withdrawn; calls under way end. 409 BW_ERR_BROADCAST_STATE from any other status',
  ),
  '/v2/broadcasts/{id}/resume': move(
    'Starts a paused (or scheduled) broadcast again where it stopped, from its start time',
  ),
  '/v2/broadcasts/{id}/cancel': move(
    'Cancels a broadcast: every recipient not yet sent is skipped (cancelled); calls under way end',
  ),
  '/v2/broadcasts/{id}/recipients': {
    get: {
      ...admin,
      summary:
        "Every recipient's outcome as CSV: seq, chat_id, conversation_id, state, reason, platform_message_id, delivery (delivered or read, WhatsApp), updated_at",
      parameters: [id],
      responses: {
        200: {
          description: 'CSV',
          content: { 'text/csv': { schema: { type: 'string' } } },
        },
        '4XX': error,
      },
    },
  },
  '/v2/conversations/{id}/opt-out': {
    delete: {
      ...admin,
      summary:
        "Clears the user's opt-out of broadcasts (set by a stop word, or by a Telegram user blocking the bot)",
      parameters: [id],
      responses: { 204: { description: 'Cleared' }, '4XX': error },
    },
  },
};
