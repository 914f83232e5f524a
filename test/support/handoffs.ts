/**
 * Handoff helpers: waiting handoffs written straight into the table (the flow side that starts
 * them is tested on its own), and agents: real accounts of role `agent` calling with their tokens.
 */
import { expect } from 'chai';
import { makeAccount, withToken } from './accounts.ts';
import type { CallOptions, CallResult, EdgeClient, TestApi } from './api.ts';

/** A conversation and its handoff, written directly. */
export interface SeededHandoff {
  conversationId: string;
  handoffId: string;
  chatId: string;
}

let chats = 7_000_000;

/**
 * Writes a user, a conversation on the bot's channel and a handoff of it (`waiting` unless
 * `status` says otherwise), with its conversation state when `state` is given.
 */
export async function seedHandoff(
  t: TestApi,
  bot: { appId: string; channelId: string },
  options: {
    chatId?: string;
    status?: string;
    queue?: string | null;
    createdAt?: string;
    claimedBy?: string;
    state?: Record<string, unknown>;
  } = {},
): Promise<SeededHandoff> {
  const db = t.schema.db;
  chats += 1;
  const chatId = options.chatId ?? String(chats);
  const pid = `test:${chatId}`;
  await db('users').insert({ pid, first_name: 'Ana' }).onConflict('pid').ignore();
  const conversations: unknown = await db('conversations')
    .insert({ app_id: bot.appId, channel_id: bot.channelId, user_pid: pid, chat_id: chatId })
    .returning('id');
  const [conversation] = conversations as { id: string }[];
  const conversationId = conversation!.id;
  if (options.state) {
    await db('conversation_state').insert({
      conversation_id: conversationId,
      app_id: bot.appId,
      state: JSON.stringify(options.state),
    });
  }
  const status = options.status ?? 'waiting';
  const handoffs: unknown = await db('handoffs')
    .insert({
      app_id: bot.appId,
      conversation_id: conversationId,
      status,
      queue: options.queue ?? null,
      reason: 'keyword',
      fallback_state: 'listen',
      ...(options.createdAt ? { created_at: options.createdAt } : {}),
      ...(status === 'claimed'
        ? { claimed_by: options.claimedBy ?? 'admin-key', claimed_at: db.fn.now() }
        : {}),
      ...(['returned', 'closed', 'fallback'].includes(status)
        ? { ended_at: db.fn.now(), ended_by: 'test' }
        : {}),
    })
    .returning('id');
  const [handoff] = handoffs as { id: string }[];
  return { conversationId, handoffId: handoff!.id, chatId };
}

/** An agent: a real account of role `agent`, holding a personal token. */
export interface Agent {
  /** The actor its token acts as (what `claimed_by` records). */
  actor: string;
  token: string;
}

/** Makes an agent account assigned to `bots` through the admin API, with a token. */
export async function agent(t: EdgeClient, bots: string[]): Promise<Agent> {
  const account = await makeAccount(t, 'agent', bots);
  const me = await withToken(t, account.token, 'GET', '/v2/me');
  expect(me.status, me.text).to.equal(200);
  return { actor: me.json.actor as string, token: account.token };
}

/** Calls the edge as `agent` (its bearer token). */
export function asAgent(
  t: EdgeClient,
  who: Agent,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  return t.call(method, path, {
    ...options,
    headers: { ...options.headers, authorization: `Bearer ${who.token}` },
  });
}
