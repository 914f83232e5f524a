/**
 * The console's test chats (docs/console.md, "Test chat"): an operator tries any bot, whatever its
 * channels, through the whole pipeline, on the bot's console channel. A test chat runs the flow it
 * started with: the draft as saved then, the current version, or any version. Its messages go
 * to the `channel` topic as a web visitor's do; its replies come back on its own event stream.
 * Everything is under the console's session (or a token): no visitor token and no origin list, so
 * the console works from whatever address it is opened at.
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { randomUUID } from 'node:crypto';
import { chatOrderingKey } from '../../shared/conversation-ref.ts';
import { BotwireError } from '../../shared/errors.ts';
import { FlowVersionStore } from '../../shared/flows/version-store.ts';
import { TestChats, type TestChat } from '../../shared/flows/test-chats.ts';
import type { ReadBody } from '../body.ts';
import { publishOnce } from '../callbacks/accept.ts';
import type { Edge } from '../edge.ts';
import { publishable } from '../admin/flow-versions.ts';
import { flowToTry } from '../admin/flow-to-try.ts';
import { principalOf, requireBotAccess } from '../admin/principal.ts';
import { streamEvents } from '../web/events.ts';

type RouteContext = Context & { params: Record<string, string> };

/** What the admin router lends these routes: its body reader and its app id check. */
export interface TestChatHelpers {
  readBody: ReadBody;
  appIdOf: (ctx: RouteContext) => string;
}

/** `schemas/http/test-chat.json`. */
interface StartInput {
  version?: 'draft' | 'current' | number;
}

/** `schemas/http/web-message.json`: the same body as a web visitor's message. */
interface ChatMessage {
  client_message_id: string;
  text?: string;
  button_id?: string;
  list_row_id?: string;
}

const CHAT_ID = /^t_[A-Za-z0-9_-]{1,64}$/;

function present(edge: Edge, chat: TestChat) {
  const base = `/v2/bots/${chat.appId}/test-chats/${chat.chatId}`;
  return {
    chat_id: chat.chatId,
    source: chat.source,
    created_by: chat.createdBy,
    created_at: chat.createdAt,
    messages_url: `${edge.publicBaseUrl}${base}/messages`,
    events_url: `${edge.publicBaseUrl}${base}/events`,
  };
}

export function testChatRoutes(router: Router, edge: Edge, helpers: TestChatHelpers): void {
  const { readBody } = helpers;
  /** The path's bot, if the caller may reach it. */
  const appIdOf = (ctx: RouteContext): string => {
    const appId = helpers.appIdOf(ctx);
    requireBotAccess(ctx, appId);
    return appId;
  };
  const versions = new FlowVersionStore(edge.db);
  const chats = new TestChats(edge.db);

  /** The chat of the path, on an existing bot. @throws BW_ERR_NOT_FOUND */
  async function chatOf(ctx: RouteContext): Promise<TestChat> {
    const appId = appIdOf(ctx);
    const chatId = ctx.params.chat_id ?? '';
    const chat = CHAT_ID.test(chatId) ? await chats.get(appId, chatId) : undefined;
    if (!chat) throw new BotwireError('BW_ERR_NOT_FOUND', 'this bot has no such test chat');
    return chat;
  }

  /**
   * The bot's console channel, made on its first test chat. A chat's bot has one already; an api
   * process whose directory has not heard of it yet (another made it a moment ago) reads it from
   * the store. @throws BW_ERR_UNKNOWN_BOT
   */
  async function consoleChannel(appId: string) {
    const known = (await edge.directory.byAppId(appId))?.channels.find((c) => c.type === 'console');
    if (known) return known;
    const made = await edge.store.consoleChannel(appId);
    if (!made) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    // Every process's directory must know it before its first message reaches channel.
    await edge.directory.notifyChanged(appId);
    return made;
  }

  router.post('/v2/bots/:app_id/test-chats', async (ctx) => {
    const appId = appIdOf(ctx);
    const input = await readBody<StartInput>(ctx, 'http/test-chat');
    if (!(await edge.directory.byAppId(appId)))
      throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    const { flow, source } = await flowToTry(versions, appId, input.version);
    // A flow that could not be published cannot be tried either: same check, same answer (422).
    publishable(edge)(flow);
    await consoleChannel(appId);
    const chat = await chats.start(appId, { flow, source, createdBy: principalOf(ctx).actor });
    ctx.state.audit = { after: { chat_id: chat.chatId, source } };
    ctx.status = 201;
    ctx.body = present(edge, chat);
  });

  router.post('/v2/bots/:app_id/test-chats/:chat_id/messages', async (ctx) => {
    const chat = await chatOf(ctx);
    const message = await readBody<ChatMessage>(ctx, 'http/web-message');
    const channel = await consoleChannel(chat.appId);
    const published = await publishOnce(edge, [
      {
        id: `console:${chat.appId}:${chat.chatId}:${message.client_message_id}`,
        message: {
          source: 'console',
          turn_id: randomUUID(),
          ordering_key: chatOrderingKey(chat.appId, chat.chatId),
          intent: 'channel_in',
          bot_input: {
            kind: 'web',
            app_id: chat.appId,
            channel_id: channel.id,
            channel_type: 'console',
            received_at: new Date().toISOString(),
            web: { visitor_id: chat.chatId, ...message },
          },
        },
      },
    ]);
    ctx.status = 202;
    ctx.body = { accepted: true, duplicate: published === 0 };
  });

  router.get('/v2/bots/:app_id/test-chats/:chat_id/events', async (ctx) => {
    const chat = await chatOf(ctx);
    const channel = await consoleChannel(chat.appId);
    if (channel.secrets.type !== 'console')
      throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'this bot has no console channel');
    streamEvents(ctx, edge, {
      appId: chat.appId,
      visitorId: chat.chatId,
      tokenKey: channel.secrets.token_key,
    });
  });
}
