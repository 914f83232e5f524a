/**
 * Operations routes: the processes of each component and when each was last seen, each topic's
 * backlog, and its dead letters (listed, inspected, replayed through the same functions as
 * `./scripts/dead-letters.sh`).
 */
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { topicDepths } from '../backlog.ts';
import {
  DEAD_LETTER_ID,
  getDeadLetter,
  listDeadLetters,
  replayAllDeadLetters,
  replayDeadLetters,
  type DeadLetter,
  type ReplayTarget,
} from '../../shared/bus/dead-letters.ts';
import { membersKey, readMembers } from '../../shared/bus/members.ts';
import { isTopic, TOPICS, type Topic } from '../../shared/bus/topics.ts';
import { BotwireError } from '../../shared/errors.ts';
import type { Edge } from '../edge.ts';
import { afterOf, limitOf, pageOf } from './paging.ts';
import { principalOf } from './principal.ts';

/** The components listed by `GET /v2/ops/processes`: the api, then one per topic. */
const COMPONENTS = ['api', ...TOPICS] as const;

/** Most refusals one replay answer lists (`refused_count` has them all). */
const MAX_REFUSALS_LISTED = 1000;

function topicOf(ctx: Context & { params: Record<string, string> }): Topic {
  const name = ctx.params.topic ?? '';
  if (!isTopic(name)) {
    throw new BotwireError(
      'BW_ERR_UNKNOWN_TOPIC',
      `unknown topic "${name.slice(0, 64)}"; topics: ${TOPICS.join(', ')}`,
    );
  }
  return name;
}

/** A dead letter as the routes show it: `data` is the message, or its raw text when not JSON. */
function presentLetter(letter: DeadLetter): Record<string, unknown> {
  let data: unknown = letter.data;
  try {
    data = JSON.parse(letter.data);
  } catch {
    // Malformed messages are dead-lettered as they came: shown as text.
  }
  return {
    id: letter.id,
    code: letter.code,
    reason: letter.reason,
    data,
    failed_at: letter.failedAt || null,
    topic: letter.topic,
    source_id: letter.sourceId,
    stream: letter.stream,
    consumer: letter.consumer,
    deliveries: letter.deliveries,
  };
}

export function opsRoutes(
  router: Router,
  edge: Edge,
  readBody: <T>(ctx: Context, schema: string) => Promise<T>,
): void {
  const target = (topic: Topic): ReplayTarget => ({
    redis: edge.redis,
    producer: edge.producer,
    prefix: edge.prefix,
    topic,
    partitions: edge.partitions,
    maxLen: edge.streamMaxLen,
  });

  router.get('/v2/ops/processes', async (ctx) => {
    const keys = COMPONENTS.map((component) => membersKey(edge.prefix, component));
    const { nowMs, members } = await readMembers(edge.redis, keys);
    ctx.body = {
      components: COMPONENTS.map((component, i) => ({
        component,
        processes: (members.get(keys[i]!) ?? []).map((m) => ({
          name: m.name,
          // A heartbeat sets the deadline to its time plus the lease.
          last_seen: new Date(Math.min(nowMs, m.deadlineMs - edge.heartbeatMs)).toISOString(),
          alive: m.deadlineMs >= nowMs,
        })),
      })),
    };
  });

  router.get('/v2/ops/topics', async (ctx) => {
    const depths = await topicDepths(edge.redis, edge.prefix, edge.partitions, TOPICS);
    ctx.body = {
      topics: depths.map((d) => ({
        topic: d.topic,
        backlog: d.waiting,
        unread: d.unread,
        pending: d.pending,
        dead_letters: d.dead,
      })),
    };
  });

  router.get('/v2/ops/dead-letters/:topic', async (ctx) => {
    const topic = topicOf(ctx);
    const limit = limitOf(ctx);
    const after = afterOf(ctx, DEAD_LETTER_ID);
    const letters = await listDeadLetters(edge.redis, edge.prefix, topic, edge.partitions, {
      count: limit + 1,
      ...(after ? { after } : {}),
    });
    const page = pageOf(letters, limit, (l) => l.id);
    ctx.body = { items: page.items.map(presentLetter), next_after: page.next_after };
  });

  router.get('/v2/ops/dead-letters/:topic/:id', async (ctx) => {
    const topic = topicOf(ctx);
    const letter = await getDeadLetter(
      edge.redis,
      edge.prefix,
      topic,
      edge.partitions,
      ctx.params.id ?? '',
    );
    if (!letter) throw new BotwireError('BW_ERR_NOT_FOUND', 'no dead letter has this id');
    ctx.body = presentLetter(letter);
  });

  router.post('/v2/ops/dead-letters/:topic/replay', async (ctx) => {
    const topic = topicOf(ctx);
    const input = await readBody<{ ids?: string[]; all?: true }>(ctx, 'http/replay-dead-letters');
    const result = input.all
      ? await replayAllDeadLetters(target(topic))
      : await replayDeadLetters(target(topic), input.ids ?? []);
    const { actor } = principalOf(ctx);
    ctx.log.info(
      { topic, actor, replayed: result.replayed.length, refused: result.refused.length },
      'dead letters replayed',
    );
    ctx.state.audit = {
      after: {
        all: input.all === true,
        replayed: result.replayed.length,
        // The first ids name what was replayed; all of them could be thousands.
        replayed_ids: result.replayed.slice(0, 50).map((r) => r.deadId),
        refused: result.refused.length,
      },
    };
    ctx.body = {
      replayed: result.replayed.length,
      replayed_ids: result.replayed.map((r) => ({ id: r.deadId, new_id: r.newId })),
      refused: result.refused
        .slice(0, MAX_REFUSALS_LISTED)
        .map((r) => ({ id: r.deadId, code: r.code, reason: r.reason })),
      refused_count: result.refused.length,
    };
  });
}
