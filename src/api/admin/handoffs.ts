/**
 * The agent's side of a handoff (docs/handoff.md, "The agent's side (API)"): the inbox list, one
 * handoff with its transcript and variables, claim and release, replies, typing, internal notes,
 * and handing the conversation back to the bot or closing it.
 *
 * Every route checks the caller may see the handoff's bot (`requireBotAccess`: agents their
 * assigned bots only). What reaches the user goes the way the bot's own messages go: a reply is a
 * `channel_out` message on the `channel` topic, ordered with the conversation's other messages
 * (the ordering key of its platform callbacks), named `agent:<handoff id>:<client message id>` so
 * that a retried POST publishes nothing more and the channel sends nothing twice. Ending a
 * handoff is asked of `flow` by a `handoff` message on the `flow` topic, in the same order.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import type { Knex } from '../../shared/db.ts';
import type { Producer } from '../../shared/bus/producer.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { EventPublisher } from '../../shared/events/publisher.ts';
import type { SchemaRegistry } from '../../shared/schemas.ts';
import {
  addNote,
  conversationRefOf,
  flowStatesOf,
  transcriptBefore,
  transcriptSince,
} from './handoff-conversation.ts';
import {
  claimHandoff,
  getHandoff,
  listHandoffs,
  markFirstReply,
  releaseHandoff,
  requireHolder,
  type HandoffRow,
} from './handoff-store.ts';
import type {} from './audit-note.ts';
import { getConversation } from './conversations.ts';
import { filtersOf } from './handoff-input.ts';
import {
  channelOutTo,
  internalOf,
  takeConversationStart,
  type OutboundMessage,
} from '../outbound/message.ts';
import type { BotDirectory } from '../../shared/bots/directory.ts';
import type { MessagingLimit } from '../../shared/whatsapp-messaging-limit.ts';
import { whatsappWindow } from '../../shared/whatsapp-window.ts';
import { recipientOf } from '../outbound/store.ts';
import { afterOf, limitOf } from './paging.ts';
import { principalOf, requireBotAccess } from './principal.ts';
import { UUID } from '../ids.ts';
import type { ReadBody } from '../body.ts';

/** What the handoff routes use of the edge. */
export interface HandoffDeps {
  db: Knex;
  directory: BotDirectory;
  /** WhatsApp numbers' messaging limits: a template after the window takes room. */
  messagingLimit: MessagingLimit;
  producer: Producer;
  events: EventPublisher;
  schemas: SchemaRegistry;
  /** How long a published reply's id is remembered against a retried POST (s). */
  dedupeTtlS: number;
  /** Told the seconds from a handoff's start to its first agent reply (a metric). */
  onAgentFirstReply?: (seconds: number) => void;
}

/** Transcript rows shown from before the handoff began (what led to it). */
const CONTEXT_ROWS = 20;
/** Transcript rows shown from the handoff's start; older pages through the conversation's messages. */
const SINCE_ROWS = 500;

/** What the audit log keeps of a handoff before and after a change. */
function noteOf(row: HandoffRow): Record<string, unknown> {
  return { status: row.status, claimed_by: row.claimed_by, queue: row.queue };
}

export function handoffRoutes(router: Router, deps: HandoffDeps, readBody: ReadBody): void {
  const { db, producer, events, schemas } = deps;

  /** The handoff of the path, once the caller may see its bot; 404 otherwise. */
  const handoffOf = async (ctx: Context & { params: Record<string, string> }) => {
    const row = await getHandoff(db, ctx.params.id ?? '');
    if (!row) throw new BotwireError('BW_ERR_NOT_FOUND', 'no handoff has this id');
    requireBotAccess(ctx, row.app_id);
    return row;
  };

  const announce = (row: HandoffRow): void =>
    events.publish('handoff', {
      app_id: row.app_id,
      conversation_id: row.conversation_id,
      handoff_id: row.id,
      status: row.status,
      queue: row.queue,
      ...(row.status === 'claimed' && row.claimed_by ? { claimed_by: row.claimed_by } : {}),
      at: new Date().toISOString(),
    });

  /** Asks flow to end the handoff (`return` at `state`, or `close`), once per handoff and action. */
  const end = async (
    row: HandoffRow,
    actor: string,
    action: 'return' | 'close',
    state?: string,
  ) => {
    const { ref, orderingKey } = await conversationRefOf(db, row.conversation_id);
    const turnId = `handoff:${row.id}:${action}`;
    const [id] = await producer.publishOnce(
      'flow',
      [
        {
          id: turnId,
          message: {
            source: 'api',
            turn_id: turnId,
            ordering_key: orderingKey,
            intent: 'handoff',
            conversation: ref,
            // `by`, not `source` (64 characters), names who ended it: an actor is longer
            // (`token:<id>@<email>`), and flow records it whole as the row's ended_by.
            handoff: { id: row.id, action, by: actor, ...(state !== undefined ? { state } : {}) },
          },
        },
      ],
      deps.dedupeTtlS,
    );
    return {
      handoff_id: row.id,
      action,
      ...(state !== undefined ? { state } : {}),
      duplicate: !id,
    };
  };

  router.get('/v2/handoffs', async (ctx) => {
    const filters = filtersOf(ctx, schemas);
    if (filters.app_id !== undefined) requireBotAccess(ctx, filters.app_id);
    const { bots } = principalOf(ctx);
    ctx.body = await listHandoffs(db, bots, filters, limitOf(ctx), afterOf(ctx, UUID));
  });

  router.get('/v2/handoffs/:id', async (ctx) => {
    const row = await handoffOf(ctx);
    // One read of the conversation for who, where and its flow state (getConversation).
    const [conversation, before, since, states, to] = await Promise.all([
      getConversation(db, row.conversation_id),
      transcriptBefore(db, row.conversation_id, row.created_at, CONTEXT_ROWS),
      transcriptSince(db, row.conversation_id, row.created_at, SINCE_ROWS),
      flowStatesOf(db, row.app_id),
      recipientOf(db, row.app_id, { conversation_id: row.conversation_id }),
    ]);
    if (!conversation)
      throw new BotwireError('BW_ERR_NOT_FOUND', 'the conversation of this handoff is gone');
    ctx.body = {
      ...row,
      channel_type: conversation.channel_type,
      chat_id: conversation.chat_id,
      first_name: conversation.first_name,
      last_name: conversation.last_name,
      // The states an agent may hand back at (agents may not read the flow itself).
      states: states ?? [],
      // Whether free-form replies may go: outside it, only a template (docs/outbound.md).
      whatsapp_window: to ? whatsappWindow(to) : null,
      conversation: {
        id: row.conversation_id,
        channel_id: conversation.channel_id,
        channel_type: conversation.channel_type,
        chat_id: conversation.chat_id,
        user_pid: conversation.user_pid,
        language: conversation.language || null,
        state: conversation.state,
        variables: conversation.variables,
      },
      transcript: { before, since, more: since.length === SINCE_ROWS },
    };
  });

  router.post('/v2/handoffs/:id/claim', async (ctx) => {
    const row = await handoffOf(ctx);
    const claimed = await claimHandoff(db, row, principalOf(ctx));
    if (claimed.changed) announce(claimed.row);
    ctx.state.audit = { before: noteOf(row), after: noteOf(claimed.row) };
    ctx.body = claimed.row;
  });

  router.post('/v2/handoffs/:id/release', async (ctx) => {
    const row = await handoffOf(ctx);
    const released = await releaseHandoff(db, row, principalOf(ctx));
    announce(released);
    ctx.state.audit = { before: noteOf(row), after: noteOf(released) };
    ctx.body = released;
  });

  router.post('/v2/handoffs/:id/messages', async (ctx) => {
    const row = await handoffOf(ctx);
    const input = await readBody<{ client_message_id: string; message: OutboundMessage }>(
      ctx,
      'http/handoff-message',
    );
    const caller = principalOf(ctx);
    requireHolder(row, caller);
    const to = await recipientOf(db, row.app_id, { conversation_id: row.conversation_id });
    if (!to) throw new BotwireError('BW_ERR_NOT_FOUND', 'the conversation of this handoff is gone');
    // WhatsApp's window and templates hold for agents too (docs/outbound.md).
    const message = await internalOf(db, to, input.message);
    const giveBack = await takeConversationStart(deps, to, message);
    const turnId = `agent:${row.id}:${input.client_message_id}`;
    const [id] = await producer
      .publishOnce(
        'channel',
        [{ id: turnId, message: channelOutTo(to, turnId, caller.actor, [message]) }],
        deps.dedupeTtlS,
      )
      .catch(async (error: unknown) => {
        await giveBack();
        throw error;
      });
    const seconds = await markFirstReply(db, row.id);
    if (seconds !== undefined) deps.onAgentFirstReply?.(seconds);
    ctx.status = 202;
    ctx.body = { turn_id: turnId, duplicate: !id };
  });

  router.post('/v2/handoffs/:id/typing', async (ctx) => {
    const row = await handoffOf(ctx);
    requireHolder(row, principalOf(ctx));
    const { ref, orderingKey } = await conversationRefOf(db, row.conversation_id);
    // WhatsApp has no typing indicator: nothing to publish.
    const shown = ref.channel_type !== 'whatsapp';
    if (shown) {
      await producer.publish('channel', {
        source: 'api',
        turn_id: `typing:${row.id}:${randomUUID()}`,
        ordering_key: orderingKey,
        intent: 'chat_action',
        conversation: ref,
        action: 'typing',
      });
    }
    ctx.status = 202;
    ctx.body = { shown };
  });

  router.post('/v2/handoffs/:id/notes', async (ctx) => {
    const row = await handoffOf(ctx);
    const input = await readBody<{ text: string }>(ctx, 'http/handoff-note');
    const { actor } = principalOf(ctx);
    const note = await addNote(db, {
      conversationId: row.conversation_id,
      turnId: `note:${row.id}:${randomUUID()}`,
      text: input.text,
      actor,
    });
    // The other agents on the handoff see the note as they see every transcript row: live.
    const { ref } = await conversationRefOf(db, row.conversation_id);
    events.publish('message', {
      app_id: row.app_id,
      conversation_id: row.conversation_id,
      channel_type: ref.channel_type,
      direction: 'out',
      message_id: String(note.id),
      message_type: 'note',
      status: 'note',
      sent_by: actor,
      created_at: new Date(note.created_at as string | Date).toISOString(),
    });
    ctx.status = 201;
    ctx.body = note;
  });

  router.post('/v2/handoffs/:id/return', async (ctx) => {
    const row = await handoffOf(ctx);
    const input = await readBody<{ state: string }>(ctx, 'http/handoff-return');
    const caller = principalOf(ctx);
    requireHolder(row, caller, true);
    if (!(await flowStatesOf(db, row.app_id))?.includes(input.state)) {
      throw new BotwireError(
        'BW_ERR_UNKNOWN_STATE',
        `the bot's published flow has no state "${input.state.slice(0, 64)}"`,
        { details: { problems: [{ path: '/state', message: 'no such state in the flow' }] } },
      );
    }
    ctx.status = 202;
    ctx.body = await end(row, caller.actor, 'return', input.state);
    ctx.state.audit = { before: noteOf(row), after: { action: 'return', state: input.state } };
  });

  router.post('/v2/handoffs/:id/close', async (ctx) => {
    const row = await handoffOf(ctx);
    const caller = principalOf(ctx);
    requireHolder(row, caller, true);
    ctx.status = 202;
    ctx.body = await end(row, caller.actor, 'close');
    ctx.state.audit = { before: noteOf(row), after: { action: 'close' } };
  });
}
