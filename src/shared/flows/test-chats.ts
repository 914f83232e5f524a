/**
 * Test chats (docs/console.md, "Test chat"): an operator's conversation with a bot on its console
 * channel, running the flow it started with: the draft as saved then, or a version. The api starts
 * them (`TestChats.start`); flow runs their turns with `TestChatFlows.flowOf`. A row is never
 * changed, so what flow caches of it stays true; rows go with their bot.
 */
import { randomToken } from '../crypto.ts';
import type { Knex } from '../db.ts';

/** Where a test chat's flow came from: the draft at a revision, or a numbered version. */
export type TestChatSource = { draft: number } | { version: number };

export interface TestChat {
  appId: string;
  /** The console channel's chat id: `t_<random>`. */
  chatId: string;
  flow: Record<string, unknown>;
  source: TestChatSource;
  createdBy: string;
  createdAt: Date;
}

interface TestChatRow {
  app_id: string;
  chat_id: string;
  flow: Record<string, unknown>;
  source: TestChatSource;
  created_by: string;
  created_at: Date;
}

function toTestChat(row: TestChatRow): TestChat {
  return {
    appId: row.app_id,
    chatId: row.chat_id,
    flow: row.flow,
    source: row.source,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

export class TestChats {
  readonly #db: Knex;

  constructor(db: Knex) {
    this.#db = db;
  }

  /** A new test chat of bot `appId` running `flow`. */
  async start(
    appId: string,
    input: { flow: Record<string, unknown>; source: TestChatSource; createdBy: string },
  ): Promise<TestChat> {
    const [row] = await this.#db<TestChatRow>('test_chats')
      .insert({
        app_id: appId,
        chat_id: `t_${randomToken(18)}`,
        flow: input.flow,
        source: input.source,
        created_by: input.createdBy,
      })
      .returning('*');
    return toTestChat(row!);
  }

  async get(appId: string, chatId: string): Promise<TestChat | undefined> {
    const row = await this.#db<TestChatRow>('test_chats')
      .where({ app_id: appId, chat_id: chatId })
      .first();
    return row && toTestChat(row);
  }
}

/** Test chats' flows as flow reads them per turn: each read once, then kept (most `max`). */
export class TestChatFlows {
  readonly #chats: TestChats;
  readonly #max: number;
  readonly #cache = new Map<string, Record<string, unknown>>();

  constructor(db: Knex, max = 1000) {
    this.#chats = new TestChats(db);
    this.#max = max;
  }

  /** The flow test chat `chatId` of bot `appId` runs; undefined when there is no such chat. */
  async flowOf(appId: string, chatId: string): Promise<Record<string, unknown> | undefined> {
    const key = `${appId}:${chatId}`;
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const chat = await this.#chats.get(appId, chatId);
    if (!chat) return undefined;
    if (this.#cache.size >= this.#max)
      this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(key, chat.flow);
    return chat.flow;
  }
}
