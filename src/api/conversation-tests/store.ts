/** A bot's conversation tests (`bot_tests`): one row per name, the whole test as JSON. */
import type { Knex } from '../../shared/db.ts';
import type { ConversationTest } from '../../shared/flows/conversation-test-types.ts';

export interface StoredTest {
  test: ConversationTest;
  updated_by: string;
  updated_at: Date;
}

export class TestStore {
  readonly #db: Knex;

  constructor(db: Knex) {
    this.#db = db;
  }

  /** The bot's tests by name, or those of `names` only (a name it lacks is left out). */
  async list(appId: string, names?: readonly string[]): Promise<StoredTest[]> {
    const query = this.#db('bot_tests')
      .where({ app_id: appId })
      .orderBy('name')
      .select('test', 'updated_by', 'updated_at');
    if (names) void query.whereIn('name', names);
    return (await query) as StoredTest[];
  }

  /** Saves `test` under its name; true when it replaced one. */
  async save(appId: string, test: ConversationTest, actor: string): Promise<boolean> {
    const row = await this.#db('bot_tests')
      .insert({ app_id: appId, name: test.name, test, updated_by: actor })
      .onConflict(['app_id', 'name'])
      .merge({ test, updated_by: actor, updated_at: this.#db.fn.now() })
      .returning(this.#db.raw('(xmax <> 0) as replaced'));
    return Boolean((row[0] as { replaced: boolean }).replaced);
  }

  /** Deletes the test; false when the bot has none of that name. */
  async delete(appId: string, name: string): Promise<boolean> {
    return (await this.#db('bot_tests').where({ app_id: appId, name }).delete()) > 0;
  }
}
