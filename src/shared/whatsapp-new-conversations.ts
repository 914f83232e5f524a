/**
 * Writing first to a WhatsApp number that never wrote to the bot (docs/outbound.md): a template
 * may go to any number, so a conversation is opened for it, as channel opens one for a user's
 * first message (`users` and `conversations`, keyed as channel keys them: the user `whatsapp:<n>`,
 * the chat `<n>`). The user's answer then lands in it, the flow starting there. Only numbers as
 * WhatsApp writes them: digits with the country code, no `+`.
 */
import type { Knex } from './db.ts';

/** A WhatsApp number as the platform gives it (`wa_id`): 7 to 15 digits, no leading zero. */
export const WHATSAPP_NUMBER = /^[1-9][0-9]{6,14}$/;

/**
 * Opens a conversation of bot `appId` on WhatsApp channel `channelId` with each of `numbers`
 * that has none (one statement); other ids are left alone.
 */
export async function openWhatsAppConversations(
  db: Knex,
  appId: string,
  channelId: string,
  numbers: readonly string[],
): Promise<void> {
  const valid = [...new Set(numbers.filter((n) => WHATSAPP_NUMBER.test(n)))];
  if (valid.length === 0) return;
  await db.raw(
    `with n as (select unnest(cast(:numbers as text[])) as chat),
     u as (
       insert into users (pid, channel_type, external_id)
       select 'whatsapp:' || chat, 'whatsapp', chat from n
       on conflict (pid) do nothing
     )
     insert into conversations (app_id, channel_id, user_pid, chat_id)
     select :appId, :channelId, 'whatsapp:' || chat, chat from n
     on conflict (channel_id, chat_id) do nothing`,
    { numbers: valid, appId, channelId },
  );
}
