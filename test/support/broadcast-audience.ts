/**
 * Users of a bot's channel made straight in Postgres for the broadcast tests and bench: thousands
 * of conversations in three statements, each with a user, an inbound message at a chosen age (for
 * WhatsApp's window) and stored variables. What channel itself records for a user who wrote.
 */
import type { Knex } from '../../src/shared/db.ts';

export interface AudienceSeed {
  appId: string;
  channelId: string;
  channelType: 'telegram' | 'whatsapp' | 'web';
  /** Chat ids made: `${first + i}` for i < count. */
  first: number;
  count: number;
  /** How long ago each user last wrote (ms). @defaultValue an hour */
  lastInboundAgoMs?: number;
  /** The stored variables of user i. */
  vars?: (i: number) => Record<string, unknown>;
}

/** Makes the users; resolves to their chat ids, in order. */
export async function seedAudience(db: Knex, seed: AudienceSeed): Promise<string[]> {
  const chats = Array.from({ length: seed.count }, (_, i) => String(seed.first + i));
  const vars = chats.map((_, i) => seed.vars?.(i) ?? {});
  await db.raw(
    `with input as (
       select chat, vars from jsonb_to_recordset(?::jsonb) as x (chat text, vars jsonb)
     ), u as (
       insert into users (pid, channel_type, external_id, first_name)
       select ? || ':' || chat, ?, chat, 'User ' || chat from input
       on conflict (pid) do nothing
     ), c as (
       insert into conversations (app_id, channel_id, user_pid, chat_id, last_message_at)
       select ?, ?, ? || ':' || chat, chat, now() - make_interval(secs => ?) from input
       returning id, chat_id
     ), m as (
       insert into messages (conversation_id, direction, turn_id, platform_message_id,
         message_type, body, status, created_at)
       select c.id, 'in', 'seed:' || c.chat_id, 'seed:' || c.chat_id, 'text',
         '{"message_type":"text","text":"hi"}', 'received', now() - make_interval(secs => ?)
       from c
     )
     -- Version 1: written once, as flow writes a conversation's first turn (its next one updates).
     insert into conversation_state (conversation_id, app_id, state, version)
     select c.id, ?, jsonb_build_object('state', 'hello', 'vars', i.vars), 1
     from c join input i on i.chat = c.chat_id`,
    [
      JSON.stringify(chats.map((chat, i) => ({ chat, vars: vars[i] }))),
      seed.channelType,
      seed.channelType,
      seed.appId,
      seed.channelId,
      seed.channelType,
      (seed.lastInboundAgoMs ?? 3_600_000) / 1000,
      (seed.lastInboundAgoMs ?? 3_600_000) / 1000,
      seed.appId,
    ],
  );
  return chats;
}
