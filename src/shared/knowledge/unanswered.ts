/**
 * Knowledge gaps: the questions a collection had no good passage for (below its relevance
 * threshold), recorded by the retriver once per question (its request id), listed newest first by
 * `GET /v2/collections/<name>/unanswered`.
 */
import type { Knex } from '../db.ts';

export interface UnansweredQuestion {
  id: string;
  question: string;
  /** The best passage's similarity by meaning; null when the collection has no vectors. */
  best_score: number | null;
  mode: string;
  app_id: string | null;
  conversation_id: string | null;
  created_at: Date;
}

/** Records a question with no good answer; a redelivered question (same request id) adds nothing. */
export async function recordUnanswered(
  db: Knex,
  row: {
    collectionId: string;
    question: string;
    bestScore: number | null;
    mode: string;
    appId?: string;
    conversationId?: string;
    requestId?: string;
  },
): Promise<void> {
  await db('unanswered_questions')
    .insert({
      collection_id: row.collectionId,
      question: row.question.slice(0, 2000),
      best_score: row.bestScore,
      mode: row.mode,
      // A bot deleted since is not an error: the question stays, with no bot.
      app_id: row.appId ? db.raw('(select app_id from bots where app_id = ?)', [row.appId]) : null,
      conversation_id: row.conversationId ?? null,
      request_id: row.requestId ?? null,
    })
    .onConflict(db.raw('(request_id) where request_id is not null'))
    .ignore();
}

/** The collection's unanswered questions, newest first, `limit` of them before id `before`. */
export async function listUnanswered(
  db: Knex,
  collectionId: string,
  page: { limit: number; before?: string },
): Promise<UnansweredQuestion[]> {
  const rows: UnansweredQuestion[] = await db<UnansweredQuestion & { collection_id: string }>(
    'unanswered_questions',
  )
    .where({ collection_id: collectionId })
    .modify((query) => {
      if (page.before) void query.where('id', '<', page.before);
    })
    .orderBy('id', 'desc')
    .limit(page.limit)
    .select('id', 'question', 'best_score', 'mode', 'app_id', 'conversation_id', 'created_at');
  return rows.map((row) => ({
    ...row,
    id: String(row.id),
    best_score: row.best_score === null ? null : Math.round(Number(row.best_score) * 10000) / 10000,
  }));
}
