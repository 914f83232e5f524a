/**
 * Broadcasts (docs/outbound.md): `POST /v2/bots/:app_id/broadcasts` makes one (its audience fixed
 * into recipients' rows at once, in one transaction with the broadcast) and starts it at its start
 * time, for a channel process to run; `dry_run` makes the same rows in a transaction it rolls
 * back, so the preview counts exactly what the broadcast would. `GET /v2/broadcasts/:id` answers
 * its progress; pause, resume and cancel move it; the recipients' outcomes are a CSV.
 */
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { Context } from 'koa';
import type { Router } from '@koa/router';
import { checkAnswerState } from '../../shared/answer-state.ts';
import { BotwireError } from '../../shared/errors.ts';
import { placeholderPaths } from '../../shared/broadcasts/placeholders.ts';
import type { ReadBody } from '../body.ts';
import type { Edge } from '../edge.ts';
import { principalOf, requireBotAccess } from '../admin/principal.ts';
import { limitOf } from '../admin/paging.ts';
import { UUID } from '../ids.ts';
import { checkedMessage, type OutboundMessage } from '../outbound/message.ts';
import { writeRecipients, type Audience, type RecipientCounts } from './audience.ts';
import type { ChannelRecord } from '../../shared/bots/types.ts';
import type { InternalMessage } from '../../shared/messages.ts';
import { messagingLimitOf, planDays } from '../../shared/whatsapp-messaging-limit.ts';
import {
  countsOf,
  countsOfMany,
  getBroadcast,
  recipientRows,
  RECIPIENT_COLUMNS,
  listBroadcasts,
  moveBroadcast,
  type BroadcastCounts,
  type BroadcastRecord,
  type Move,
} from './store.ts';

type RouteContext = Context & { params: Record<string, string> };

/** `schemas/http/create-broadcast.json`. */
interface CreateBroadcast {
  name: string;
  channel_id: string;
  audience: Audience;
  message: OutboundMessage;
  flow_state?: string;
  start_at?: string;
  dry_run?: boolean;
}

/**
 * How a WhatsApp template broadcast fits its number's messaging limit (docs/outbound.md, "The
 * daily messaging limit"): the recipients whose window is closed start a conversation each; what
 * the number has no room for today goes on over the following days. Nothing for other messages.
 */
async function limitPlan(
  edge: Edge,
  channel: ChannelRecord,
  internal: InternalMessage,
  counts: RecipientCounts,
  startAt: Date,
): Promise<{ messaging_limit?: Record<string, unknown> }> {
  if (channel.secrets.type !== 'whatsapp' || internal.message_type !== 'template') return {};
  const details = channel.secrets.details;
  const usage = await edge.messagingLimit.usage(
    details.phone_number_id,
    messagingLimitOf(details),
    startAt,
  );
  return {
    messaging_limit: {
      limit: usage.limit ?? 'unlimited',
      used: usage.used,
      starting: counts.closed,
      days: planDays(usage, counts.closed, startAt),
    },
  };
}

/** Thrown inside the dry run's transaction to roll it back with its counts. */
class DryRun extends Error {
  constructor(readonly counts: Awaited<ReturnType<typeof writeRecipients>>) {
    super('a dry run: rolled back');
  }
}

/** The broadcast as the API shows it, with its recipients' counts. */
async function present(edge: Edge, row: BroadcastRecord) {
  return presentWith(row, await countsOf(edge.db, row.id));
}

function presentWith(row: BroadcastRecord, counts: BroadcastCounts) {
  return {
    id: row.id,
    app_id: row.app_id,
    channel_id: row.channel_id,
    name: row.name,
    status: row.status,
    audience: row.audience,
    message: row.message,
    flow_state: row.flow_state,
    created_by: row.created_by,
    created_at: row.created_at,
    start_at: row.start_at,
    started_at: row.started_at,
    ended_at: row.ended_at,
    waiting_until: row.waiting_until,
    counts,
  };
}

export function broadcastRoutes(
  router: Router,
  edge: Edge,
  helpers: { readBody: ReadBody; appIdOf: (ctx: RouteContext) => string },
): void {
  /** The broadcast `:id`, if the caller may see its bot. */
  const broadcastOf = async (ctx: RouteContext) => {
    const id = ctx.params.id ?? '';
    if (!UUID.test(id)) throw new BotwireError('BW_ERR_NOT_FOUND', 'no broadcast has this id');
    const row = await getBroadcast(edge.db, id);
    requireBotAccess(ctx, row.app_id);
    return row;
  };

  router.post('/v2/bots/:app_id/broadcasts', async (ctx) => {
    const appId = helpers.appIdOf(ctx);
    requireBotAccess(ctx, appId);
    const input = await helpers.readBody<CreateBroadcast>(ctx, 'http/create-broadcast');
    const bot = await edge.directory.byAppId(appId);
    if (!bot) throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has this app id');
    const channel = bot.channels.find((c) => c.id === input.channel_id);
    if (!channel || channel.type === 'console') {
      throw new BotwireError(
        'BW_ERR_NOT_FOUND',
        'the bot has no Telegram, WhatsApp or web channel with this id',
      );
    }
    if (input.flow_state !== undefined) checkAnswerState(bot.flow, input.flow_state);
    const internal = await checkedMessage(
      edge.db,
      { channel_id: channel.id, channel_type: channel.type },
      input.message,
    );
    const paths = placeholderPaths(internal);
    const startAt = input.start_at ? new Date(input.start_at) : new Date();
    const id = randomUUID();
    // Kept as asked, but a CSV as its count of rows, not its text.
    const audience = input.audience.kind === 'csv' ? { kind: 'csv' } : input.audience;
    let made: { row: BroadcastRecord; counts: RecipientCounts };
    try {
      made = await edge.db.transaction(async (tx) => {
        // The row first: the recipients refer to it.
        await tx('broadcasts').insert({
          id,
          app_id: appId,
          channel_id: channel.id,
          name: input.name,
          status: 'scheduled',
          audience: JSON.stringify(audience),
          message: JSON.stringify(input.message),
          internal: JSON.stringify(internal),
          flow_state: input.flow_state ?? null,
          total: 0,
          created_by: principalOf(ctx).actor,
          start_at: startAt,
          start_name: 'first',
        });
        const counts = await writeRecipients(tx, {
          broadcastId: id,
          appId,
          channelId: channel.id,
          audience: input.audience,
          paths,
          windowed: channel.type === 'whatsapp' && internal.message_type !== 'template',
          opens: channel.type === 'whatsapp' && internal.message_type === 'template',
          numbers: channel.type === 'whatsapp',
        });
        if (input.dry_run) throw new DryRun(counts);
        await tx('broadcasts')
          .where('id', id)
          .update({
            total: counts.total,
            ...(input.audience.kind === 'csv'
              ? { audience: JSON.stringify({ kind: 'csv', rows: counts.total }) }
              : {}),
          });
        return { row: await getBroadcast(tx, id), counts };
      });
    } catch (error) {
      if (!(error instanceof DryRun)) throw error;
      const { total, queued, skipped } = error.counts;
      const plan = await limitPlan(edge, channel, internal, error.counts, startAt);
      ctx.body = { dry_run: true, total, will_send: queued, skipped, ...plan };
      return;
    }
    // Made: started for a channel process from its start time. Should this fail, the broadcast
    // stays scheduled, and POST …/resume starts it.
    await edge.broadcasts.start(id, 'first', startAt).catch((error: unknown) => {
      throw new BotwireError(
        'BW_ERR_UNAVAILABLE',
        `the broadcast was made (${id}) but could not be started (POST /v2/broadcasts/${id}/resume starts it): ${(error as Error).message}`,
        { cause: error, details: { broadcast_id: id } },
      );
    });
    ctx.status = 201;
    ctx.body = {
      ...(await present(edge, made.row)),
      ...(await limitPlan(edge, channel, internal, made.counts, startAt)),
    };
    ctx.state.audit = { after: { id, name: input.name, total: made.row.total } };
  });

  router.get('/v2/bots/:app_id/broadcasts', async (ctx) => {
    const appId = helpers.appIdOf(ctx);
    requireBotAccess(ctx, appId);
    const rows = await listBroadcasts(edge.db, appId, limitOf(ctx));
    const counts = await countsOfMany(
      edge.db,
      rows.map((row) => row.id),
    );
    ctx.body = { items: rows.map((row) => presentWith(row, counts.get(row.id)!)) };
  });

  router.get('/v2/broadcasts/:id', async (ctx) => {
    ctx.body = await present(edge, await broadcastOf(ctx));
  });

  for (const move of ['pause', 'resume', 'cancel'] as const satisfies readonly Move[]) {
    router.post(`/v2/broadcasts/:id/${move}`, async (ctx) => {
      const before = await broadcastOf(ctx);
      // Each resume is its own start: only the job it adds runs the broadcast from now on (a job
      // of an earlier start, delayed by a wait for the messaging limit, ends when it fires).
      const start = move === 'resume' ? randomUUID() : undefined;
      const after = await moveBroadcast(edge.db, before.id, move, start);
      if (start) await edge.broadcasts.start(after.id, start, after.start_at);
      ctx.body = await present(edge, after);
      ctx.state.audit = {
        before: { status: before.status },
        after: { status: after.status },
      };
    });
  }

  router.get('/v2/broadcasts/:id/recipients', async (ctx) => {
    const row = await broadcastOf(ctx);
    ctx.type = 'text/csv; charset=utf-8';
    ctx.attachment(`broadcast-${row.id}-recipients.csv`);
    const body = new PassThrough();
    ctx.body = body;
    // Streamed, a page of rows at a time: a broadcast of a million recipients is not held in memory.
    pipeline(
      Readable.from(recipientRows(edge.db, row.id)),
      stringify({
        header: true,
        columns: [...RECIPIENT_COLUMNS],
        cast: { date: (value) => value.toISOString() },
      }),
      body,
    ).catch((error: unknown) => body.destroy(error as Error));
  });

  router.delete('/v2/conversations/:id/opt-out', async (ctx) => {
    const id = ctx.params.id ?? '';
    const raw: unknown = UUID.test(id)
      ? await edge.db('conversations').where('id', id).first('app_id', 'opted_out_at')
      : undefined;
    const found = raw as { app_id: string; opted_out_at: Date | null } | undefined;
    if (!found) throw new BotwireError('BW_ERR_NOT_FOUND', 'no conversation has this id');
    requireBotAccess(ctx, found.app_id);
    await edge.db('conversations').where('id', id).update({ opted_out_at: null });
    ctx.status = 204;
    ctx.state.audit = { before: { opted_out_at: found.opted_out_at } };
    ctx.state.auditAppId = found.app_id;
  });
}
