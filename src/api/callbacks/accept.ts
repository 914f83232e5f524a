/**
 * The common tail of every platform callback: validate, keep what is authentic but invalid in the
 * quarantine stream, publish once per platform id, answer.
 */
import {
  admitTurns,
  botTurnsKey,
  finishTurns,
  parkedKey,
  parkedReplies,
} from '../../shared/bot-turns.ts';
import { withDeadline } from '../../shared/deadline.ts';
import { BotwireError, errorMessage } from '../../shared/errors.ts';
import { isCluster } from '../../shared/redis.ts';
import { describeProblems } from '../../shared/schemas.ts';
import type { OnceMessage } from '../../shared/bus/producer.ts';
import type { Edge } from '../edge.ts';

/** Approximate length kept of the quarantine stream (entries). */
const QUARANTINE_MAXLEN = 10_000;

/** The stream holding authentic payloads that failed their schema, for inspection. */
export function quarantineKey(prefix: string): string {
  return `${prefix}:{quarantine}`;
}

/**
 * Validates a callback body. When it fails and the sender was authenticated, the raw payload is
 * kept in the quarantine stream before the 400 goes out: the platform will not send it again.
 */
export async function validateCallback<T>(
  edge: Edge,
  schema: string,
  body: { raw: Buffer; json: unknown },
  source: { platform: string; authentic: boolean; appId?: string },
): Promise<T> {
  const result = edge.schemas.validate<T>(schema, body.json);
  if (result.ok) return result.value;
  const reason = describeProblems(result.problems);
  if (source.authentic) {
    await edge.redis
      .xadd(
        quarantineKey(edge.prefix),
        'MAXLEN',
        '~',
        QUARANTINE_MAXLEN,
        '*',
        'platform',
        source.platform,
        'app_id',
        source.appId ?? '',
        'reason',
        reason,
        'received_at',
        new Date().toISOString(),
        'body',
        body.raw,
      )
      .catch((error: unknown) => {
        throw new BotwireError('BW_ERR_UNAVAILABLE', 'could not quarantine the payload', {
          cause: error,
        });
      });
  }
  throw new BotwireError('BW_ERR_SCHEMA', `the payload fails its schema: ${reason}`, {
    details: { problems: result.problems },
  });
}

/** The bot, channel and turn of a channel_in message. */
function turnOf(message: unknown): { appId: string; channelId: string; turnId: string } {
  const { turn_id: turnId, bot_input: input } = message as {
    turn_id: string;
    bot_input: { app_id: string; channel_id: string };
  };
  return { appId: input.app_id, channelId: input.channel_id, turnId };
}

/** The bots a callback's messages are for: each one's channels and turns. */
function botsOf(
  messages: readonly OnceMessage[],
): Map<string, { channels: Set<string>; turns: string[] }> {
  const bots = new Map<string, { channels: Set<string>; turns: string[] }>();
  for (const { message } of messages) {
    const { appId, channelId, turnId } = turnOf(message);
    const bot = bots.get(appId) ?? { channels: new Set(), turns: [] };
    bot.channels.add(channelId);
    bot.turns.push(turnId);
    bots.set(appId, bot);
  }
  return bots;
}

function overloaded(): BotwireError {
  return new BotwireError(
    'BW_ERR_BOT_OVERLOADED',
    "too many of this bot's messages are waiting to be handled; try again shortly",
  );
}

/**
 * Per-bot backpressure on a Redis Cluster, before the publish: refuses the callback with
 * `BW_ERR_BOT_OVERLOADED` when a bot it carries has more turns waiting than
 * `EDGE_MAX_BOT_BACKLOG` (`src/shared/bot-turns.ts`), and otherwise enters its turns in their
 * bots' ledgers (one script per bot, beside a read of its channels' parked replies); answers the
 * turns entered, by bot. Other bots' callbacks are not affected. A count that cannot be read
 * within `EDGE_BOT_BACKLOG_WAIT_MS` (the master holding it failing over, frozen, or Redis away)
 * takes the callback uncounted: the count guards fairness, and the bot's intake must not hang on
 * that one master while the partition its conversation goes to is served (when that one is away
 * too, the publish answers 503).
 */
async function admitBots(
  edge: Edge,
  messages: readonly OnceMessage[],
): Promise<Map<string, string[]>> {
  const { max, horizonMs, waitMs } = edge.botBacklog;
  const entered = new Map<string, string[]>();
  if (max === 0 || messages.length === 0) return entered;
  const bots = botsOf(messages);
  let counts: { appId: string; turns: string[]; ledger: number; parked: number }[];
  try {
    const reads = Promise.all(
      [...bots].map(async ([appId, { channels, turns }]) => {
        const [ledger, parked] = await Promise.all([
          admitTurns(edge.redis, edge.prefix, appId, turns, max, horizonMs),
          parkedReplies(edge.redis, edge.prefix, [...channels]),
        ]);
        return { appId, turns, ledger, parked };
      }),
    );
    counts = await withDeadline(reads, waitMs, 'reading the bot backlog');
  } catch (error) {
    // A script answered past the bound may still enter its turns: they then count as taken.
    edge.warnings.warn(
      'bot-backlog',
      { reason: errorMessage(error) },
      'bot backlog unread: callbacks taken uncounted',
    );
    return entered;
  }
  // The script entered the turns of each bot whose ledger held `max` or fewer.
  for (const { appId, turns, ledger } of counts) if (ledger <= max) entered.set(appId, turns);
  if (counts.some(({ ledger, parked }) => ledger + parked > max)) {
    await withdraw(edge, entered);
    throw overloaded();
  }
  return entered;
}

/**
 * Takes turns entered by `admitBots` out of their ledgers again (the callback was refused, or
 * they were not published). Best effort within the backlog's bound: a turn left behind counts
 * until the horizon.
 */
async function withdraw(edge: Edge, turns: ReadonlyMap<string, readonly string[]>): Promise<void> {
  if (turns.size === 0) return;
  const removed = Promise.all(
    [...turns].map(([appId, ids]) => finishTurns(edge.redis, edge.prefix, appId, ids)),
  );
  await withDeadline(removed, edge.botBacklog.waitMs, 'withdrawing the turns').catch(
    () => undefined,
  );
}

/** How long a callback's publish may take before it is answered 503 (ms). */
function publishBound(edge: Edge): number {
  // Past the bound the platform is told 503 and sends it again; a publish that still lands has
  // its markers, so the retry finds it seen and it counts once.
  const { replicaWait } = edge;
  return edge.publishWaitMs + (replicaWait.replicas > 0 ? replicaWait.timeoutMs : 0);
}

/**
 * Publishes channel_in messages once each, after the per-bot backpressure check, and enters the
 * new turns in their bots' ledgers. Answers how many were new.
 *
 * On one Redis server the check, the publish and the ledger entries are one script: a refused
 * callback writes nothing, and a duplicate enters no turn. On a cluster the ledgers and the
 * partition streams live in different slots, so the check enters the turns first (`admitBots`)
 * and a turn not published after all (a duplicate, or the publish failed) is taken out again.
 */
export async function publishOnce(edge: Edge, messages: readonly OnceMessage[]): Promise<number> {
  if (edge.botBacklog.max > 0 && !isCluster(edge.redis)) return publishAdmitted(edge, messages);
  const entered = await admitBots(edge, messages);
  // A publish past the bound that still lands leaves its turn uncounted (it was withdrawn).
  let ids: (string | null)[];
  try {
    ids = await withDeadline(
      edge.producer.publishOnce('channel', messages, edge.dedupeTtlS, edge.replicaWait),
      publishBound(edge),
      'publishing the callback',
      'BW_ERR_UNAVAILABLE',
    );
  } catch (error) {
    await withdraw(edge, entered);
    throw error;
  }
  const unpublished = new Map<string, string[]>();
  messages.forEach(({ message }, i) => {
    if (ids[i]) return;
    const { appId, turnId } = turnOf(message);
    if (entered.has(appId)) unpublished.set(appId, [...(unpublished.get(appId) ?? []), turnId]);
  });
  await withdraw(edge, unpublished);
  return ids.filter(Boolean).length;
}

/** `publishOnce` on one Redis server: the per-bot check in the publish script. */
async function publishAdmitted(edge: Edge, messages: readonly OnceMessage[]): Promise<number> {
  const { prefix, botBacklog } = edge;
  const bots = [...botsOf(messages)];
  const ledgerOf = new Map(bots.map(([appId], i) => [appId, i]));
  const result = await withDeadline(
    edge.producer.publishOnceAdmitted(
      'channel',
      messages,
      edge.dedupeTtlS,
      {
        ledgers: bots.map(([appId, { channels }]) => ({
          key: botTurnsKey(prefix, appId),
          counted: [...channels].map((id) => parkedKey(prefix, id)),
        })),
        members: messages.map(({ message }) => {
          const { appId, turnId } = turnOf(message);
          return { ledger: ledgerOf.get(appId)!, member: turnId };
        }),
        max: botBacklog.max,
        horizonMs: botBacklog.horizonMs,
        now: Date.now(),
      },
      edge.replicaWait,
    ),
    publishBound(edge),
    'publishing the callback',
    'BW_ERR_UNAVAILABLE',
  );
  if ('refused' in result) throw overloaded();
  return result.ids.filter(Boolean).length;
}
