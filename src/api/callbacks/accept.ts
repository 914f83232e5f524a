/**
 * The common tail of every platform callback: validate, keep what is authentic but invalid in the
 * quarantine stream, publish once per platform id, answer.
 */
import { admitTurns, botBacklog, type AdmittedTurn } from '../../shared/bot-turns.ts';
import { withDeadline } from '../../shared/deadline.ts';
import { BotwireError, errorMessage } from '../../shared/errors.ts';
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
function turnOf(message: unknown): AdmittedTurn & { channelId: string } {
  const { turn_id: turnId, bot_input: input } = message as {
    turn_id: string;
    bot_input: { app_id: string; channel_id: string };
  };
  return { appId: input.app_id, channelId: input.channel_id, turnId };
}

/**
 * Per-bot backpressure: refuses the callback with `BW_ERR_BOT_OVERLOADED` when a bot it carries
 * has more turns waiting than `EDGE_MAX_BOT_BACKLOG` (`src/shared/bot-turns.ts`). Other bots'
 * callbacks are not affected. A count that cannot be read within `EDGE_BOT_BACKLOG_WAIT_MS` (the
 * Redis Cluster master holding it failing over, frozen, or Redis away) takes the callback
 * uncounted: the count guards fairness, and the bot's intake must not hang on that one master
 * while the partition its conversation goes to is served (when that one is away too, the
 * publish answers 503).
 */
async function admitBots(edge: Edge, messages: readonly OnceMessage[]): Promise<void> {
  const { max, horizonMs, waitMs } = edge.botBacklog;
  if (max === 0 || messages.length === 0) return;
  const channels = new Map<string, Set<string>>();
  for (const { message } of messages) {
    const { appId, channelId } = turnOf(message);
    channels.set(appId, (channels.get(appId) ?? new Set()).add(channelId));
  }
  let counts: number[];
  try {
    const reads = Promise.all(
      [...channels].map(([appId, ids]) =>
        botBacklog(edge.redis, edge.prefix, appId, [...ids], horizonMs),
      ),
    );
    counts = await withDeadline(reads, waitMs, 'reading the bot backlog');
  } catch (error) {
    edge.warnings.warn(
      'bot-backlog',
      { reason: errorMessage(error) },
      'bot backlog unread: callbacks taken uncounted',
    );
    return;
  }
  if (counts.some((count) => count > max)) {
    throw new BotwireError(
      'BW_ERR_BOT_OVERLOADED',
      "too many of this bot's messages are waiting to be handled; try again shortly",
    );
  }
}

/**
 * Publishes channel_in messages once each, after the per-bot backpressure check, and enters the
 * new turns in their bots' ledgers; returns how many were new.
 */
export async function publishOnce(edge: Edge, messages: readonly OnceMessage[]): Promise<number> {
  await admitBots(edge, messages);
  const { replicaWait } = edge;
  // Past the bound the platform is told 503 and sends it again; a publish that still lands has
  // its markers, so the retry finds it seen and it counts once.
  const bound = edge.publishWaitMs + (replicaWait.replicas > 0 ? replicaWait.timeoutMs : 0);
  const ids = await withDeadline(
    edge.producer.publishOnce('channel', messages, edge.dedupeTtlS, replicaWait),
    bound,
    'publishing the callback',
    'BW_ERR_UNAVAILABLE',
  );
  const admitted = messages.filter((_, i) => ids[i] !== null && ids[i] !== undefined);
  if (edge.botBacklog.max > 0 && admitted.length > 0) {
    // Published already: a ledger write that fails, or waits on a master that is away, only
    // leaves the turn uncounted; the answer does not wait for it past the backlog's bound.
    const entered = admitTurns(
      edge.redis,
      edge.prefix,
      admitted.map(({ message }) => turnOf(message)),
      edge.botBacklog.horizonMs,
    );
    await withDeadline(entered, edge.botBacklog.waitMs, 'entering the turns').catch(
      () => undefined,
    );
  }
  return admitted.length;
}
