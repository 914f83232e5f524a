/**
 * OpenAPI paths of the agent's side of a handoff (`admin/handoffs.ts`; docs/handoff.md, "The
 * agent's side (API)"). Spread into the document's `paths` and `components.schemas`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCHEMAS_DIR } from '../shared/schemas.ts';
import { admin, answer, error, page, returns } from './openapi-parts.ts';

function body(name: string): Record<string, unknown> {
  const schema = JSON.parse(readFileSync(join(SCHEMAS_DIR, `${name}.json`), 'utf8')) as unknown;
  return { required: true, content: { 'application/json': { schema } } };
}

const when = { type: 'string', format: 'date-time' };
const maybeWhen = { type: ['string', 'null'], format: 'date-time' };
const maybeText = { type: ['string', 'null'] };
const status = { enum: ['waiting', 'claimed', 'returned', 'closed', 'fallback'] };

const handoff = {
  type: 'object',
  required: ['id', 'app_id', 'conversation_id', 'status', 'queue', 'created_at', 'waiting_s'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    app_id: { type: 'string' },
    conversation_id: { type: 'string', format: 'uuid' },
    status,
    queue: maybeText,
    reason: {
      enum: ['step', 'keyword', 'intent'],
      description: 'a handoff step, a bot keyword, or a global intent of the flow (docs/flows.md)',
    },
    created_at: when,
    deadline_at: { ...maybeWhen, description: 'no claim by then: the fallback state runs' },
    claimed_by: { ...maybeText, description: "the holder's actor" },
    claimed_account: {
      ...maybeText,
      description: "the holder's account id (null when the admin key holds it)",
    },
    claimed_at: maybeWhen,
    first_reply_at: maybeWhen,
    ended_at: maybeWhen,
    ended_by: maybeText,
    return_state: maybeText,
    fallback_state: maybeText,
    waiting_s: { type: 'integer', description: 'seconds waited: until the claim, the end, or now' },
    channel_type: { type: 'string', description: 'list and detail, not claim or release' },
    chat_id: { type: 'string', description: 'list and detail, not claim or release' },
    first_name: { ...maybeText, description: "the user's name, as the platform gave it" },
    last_name: maybeText,
  },
};

const transcriptRow = {
  type: 'object',
  required: ['id', 'direction', 'message_type', 'body', 'status', 'sent_by', 'created_at'],
  properties: {
    id: { type: 'string' },
    direction: { enum: ['in', 'out'] },
    turn_id: maybeText,
    message_type: { type: 'string' },
    body: { type: 'object' },
    status: { ...maybeText, description: 'received, sent, failed, ..., or note' },
    error: { ...maybeText, description: 'why the platform refused an outbound message' },
    sent_by: { ...maybeText, description: "null: the bot's; else the agent's actor" },
    created_at: when,
  },
};
const rows = { type: 'array', items: transcriptRow };

const handoffDetail = {
  ...handoff,
  required: [
    ...handoff.required,
    'channel_type',
    'chat_id',
    'first_name',
    'last_name',
    'states',
    'whatsapp_window',
    'conversation',
    'transcript',
  ],
  properties: {
    ...handoff.properties,
    states: {
      type: 'array',
      items: { type: 'string' },
      description:
        "the states of the bot's published flow, sorted by name: where it may be handed back",
    },
    whatsapp_window: {
      type: ['object', 'null'],
      description:
        "WhatsApp: whether the user's 24-hour window is open (free-form replies may go; otherwise only a template) and when it closes; null elsewhere. closes_at is null when the user never wrote",
      required: ['open', 'closes_at'],
      properties: {
        open: { type: 'boolean' },
        closes_at: { type: ['string', 'null'], format: 'date-time' },
      },
    },
    conversation: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        channel_id: { type: 'string' },
        channel_type: { type: 'string' },
        chat_id: { type: 'string' },
        user_pid: { type: 'string' },
        language: maybeText,
        state: { ...maybeText, description: 'the flow state it waits in' },
        variables: { type: 'object', description: 'the flow variables' },
      },
    },
    transcript: {
      type: 'object',
      required: ['before', 'since', 'more'],
      properties: {
        before: { ...rows, description: 'the last 20 rows before the handoff began' },
        since: { ...rows, description: 'rows from its start, oldest first (at most 500)' },
        more: {
          type: 'boolean',
          description: 'more rows follow: page on with GET /v2/conversations/{id}/messages',
        },
      },
    },
  },
};

const ended = {
  type: 'object',
  required: ['handoff_id', 'action', 'duplicate'],
  properties: {
    handoff_id: { type: 'string' },
    action: { enum: ['return', 'close'] },
    state: { type: 'string' },
    duplicate: { type: 'boolean', description: 'asked already: nothing more was published' },
  },
};

const id = { name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };

/** `summary`, the roles, and the errors of a route on one handoff. */
const onOne = (summary: string, extra: Record<string, unknown>) => ({
  ...admin,
  summary,
  parameters: [id],
  ...extra,
});

export const handoffSchemas = { handoff, 'handoff-detail': handoffDetail };

export const handoffPaths: Record<string, unknown> = {
  '/v2/handoffs': {
    get: {
      ...admin,
      summary:
        'Handoffs, oldest first (the one waiting longest on top); open ones (waiting, claimed) unless status says otherwise. Agents see their assigned bots only.',
      parameters: [
        ...page,
        { name: 'app_id', in: 'query', schema: { type: 'string', format: 'uuid' } },
        {
          name: 'status',
          in: 'query',
          schema: { enum: ['open', 'waiting', 'claimed', 'returned', 'closed', 'fallback'] },
        },
        { name: 'queue', in: 'query', schema: { type: 'string', maxLength: 64 } },
      ],
      responses: {
        200: answer('A page of handoffs', {
          type: 'object',
          required: ['items', 'next_after'],
          properties: {
            items: { type: 'array', items: { $ref: '#/components/schemas/handoff' } },
            next_after: { type: ['string', 'null'] },
          },
        }),
        '4XX': error,
      },
    },
  },
  '/v2/handoffs/{id}': {
    get: onOne('One handoff, with the flow state and variables and the transcript since it began', {
      responses: { 200: returns('The handoff', 'handoff-detail'), '4XX': error },
    }),
  },
  '/v2/handoffs/{id}/claim': {
    post: onOne(
      'Claim a waiting handoff (one agent at a time): 409 BW_ERR_HANDOFF_CLAIMED when another agent holds it; the holder claiming again gets 200',
      { responses: { 200: returns('Claimed by the caller', 'handoff'), '4XX': error } },
    ),
  },
  '/v2/handoffs/{id}/release': {
    post: onOne('Give a claimed handoff back to its queue (the holder only)', {
      responses: { 200: returns('Waiting again', 'handoff'), '4XX': error },
    }),
  },
  '/v2/handoffs/{id}/messages': {
    post: onOne(
      "Send the user a message (the holder only), through channel like the bot's; the same client_message_id again sends nothing more",
      {
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/handoff-message' } },
          },
        },
        responses: {
          202: answer('Published to channel', {
            type: 'object',
            required: ['turn_id', 'duplicate'],
            properties: {
              turn_id: { type: 'string', description: 'agent:<handoff id>:<client_message_id>' },
              duplicate: { type: 'boolean' },
            },
          }),
          '4XX': error,
        },
      },
    ),
  },
  '/v2/handoffs/{id}/typing': {
    post: onOne(
      'Show the user the agent is typing (the holder only): Telegram sendChatAction, a typing event on the web channel, nothing on WhatsApp',
      {
        responses: {
          202: answer('Asked of channel (or nothing, shown false)', {
            type: 'object',
            required: ['shown'],
            properties: { shown: { type: 'boolean' } },
          }),
          '4XX': error,
        },
      },
    ),
  },
  '/v2/handoffs/{id}/notes': {
    post: onOne('Write an internal note into the transcript (status note; never sent)', {
      requestBody: body('http/handoff-note'),
      responses: { 201: answer('The transcript row', transcriptRow), '4XX': error },
    }),
  },
  '/v2/handoffs/{id}/return': {
    post: onOne(
      'Hand the conversation back to the bot at a state of its published flow (the holder, or anyone while it waits): 400 BW_ERR_UNKNOWN_STATE for a state the flow lacks. flow ends the handoff and runs the state',
      {
        requestBody: body('http/handoff-return'),
        responses: { 202: answer('Asked of flow', ended), '4XX': error },
      },
    ),
  },
  '/v2/handoffs/{id}/close': {
    post: onOne(
      "Close the handoff and the conversation (the holder, or anyone while it waits); the user's next message starts the flow over",
      { responses: { 202: answer('Asked of flow', ended), '4XX': error } },
    ),
  },
};
