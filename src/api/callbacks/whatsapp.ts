/**
 * The WhatsApp Cloud API webhook: POST /callback (bot found by `metadata.phone_number_id`) and
 * POST /v2/callback/whatsapp/<app_id>, plus the GET verification handshake.
 *
 * One payload may carry several entries, changes, messages and statuses, possibly for several
 * numbers. Numbers that belong to no bot are skipped (a Meta app may serve numbers botwire does
 * not run); when none is known the answer is 404. Every channel involved that has an app secret
 * must match `X-Hub-Signature-256` over the raw body bytes.
 *
 * Before the body is read, what can be refused cheaply is: a path's unknown bot or a bot without a
 * WhatsApp channel; on `/callback`, no WhatsApp channel at all; and a missing or malformed
 * signature header when every channel that could be addressed has an app secret. On `/callback`
 * the last two use the bot directory only while it is current (it holds every bot).
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { Context } from 'koa';
import type { WhatsAppMatch } from '../../shared/bots/directory.ts';
import type { ChannelRecord } from '../../shared/bots/types.ts';
import type { OnceMessage } from '../../shared/bus/producer.ts';
import { chatOrderingKey } from '../../shared/conversation-ref.ts';
import { secretsEqual } from '../../shared/crypto.ts';
import { BotwireError } from '../../shared/errors.ts';
import { readJson } from '../body.ts';
import type { Edge } from '../edge.ts';
import { publishOnce, validateCallback } from './accept.ts';
import { activeBot } from './lookup.ts';

interface Value {
  metadata: { phone_number_id: string; display_phone_number?: string };
  contacts?: { wa_id: string; profile?: { name?: string } }[];
  messages?: { id: string; from: string; type: string }[];
  statuses?: { id: string; status: string; recipient_id?: string }[];
}

interface Payload {
  entry: { changes: { field: string; value: Value }[] }[];
}

/** Distinct numbers one payload may name (Meta sends one per change; a business has few). */
const MAX_NUMBERS = 10;

/** Phone number ids named anywhere in a payload that may not fit the schema yet. */
function numbersIn(json: unknown): string[] {
  const numbers = new Set<string>();
  const entries = (json as { entry?: unknown } | null)?.entry;
  if (!Array.isArray(entries)) return [];
  for (const entry of entries.slice(0, 100)) {
    const changes = (entry as { changes?: unknown } | null)?.changes;
    if (!Array.isArray(changes)) continue;
    for (const change of changes.slice(0, 100)) {
      const id = (change as { value?: { metadata?: { phone_number_id?: unknown } } } | null)?.value
        ?.metadata?.phone_number_id;
      if (typeof id === 'string') numbers.add(id);
    }
  }
  if (numbers.size > MAX_NUMBERS) {
    // Checked before any lookup: a forged payload must not turn into a query per number.
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      `a payload may name at most ${MAX_NUMBERS} phone numbers`,
      {
        details: {
          problems: [
            { path: '/entry', message: `more than ${MAX_NUMBERS} distinct phone_number_id` },
          ],
        },
      },
    );
  }
  return [...numbers];
}

const SIGNATURE_SHAPE = /^sha256=[0-9a-f]{64}$/i;

/** The refusals that need no body (see the header comment). */
async function checkBeforeBody(ctx: Context, edge: Edge, appId?: string): Promise<void> {
  let channels: ChannelRecord[];
  if (appId !== undefined) {
    const bot = await activeBot(edge, appId);
    channels = bot.channels.filter((c) => c.type === 'whatsapp');
    if (channels.length === 0)
      throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'this bot has no whatsapp channel');
  } else {
    if (!edge.directory.current) return;
    channels = edge.directory.whatsappChannels();
    if (channels.length === 0)
      throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has a whatsapp channel');
  }
  const allSigned = channels.every(
    (c) => c.secrets.type === 'whatsapp' && Boolean(c.secrets.details.app_secret),
  );
  const signature = ctx.get('x-hub-signature-256');
  if (allSigned && !SIGNATURE_SHAPE.test(signature)) {
    throw new BotwireError(
      'BW_ERR_BAD_SIGNATURE',
      signature
        ? 'X-Hub-Signature-256 is not sha256=<64 hex digits>'
        : 'the X-Hub-Signature-256 header is missing',
    );
  }
}

function signatureMatches(header: string | undefined, raw: Buffer, appSecret: string): boolean {
  const expected = `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
  return secretsEqual(header?.toLowerCase(), expected);
}

async function matchNumbers(
  edge: Edge,
  numbers: string[],
  appId?: string,
): Promise<Map<string, WhatsAppMatch>> {
  const matches = new Map<string, WhatsAppMatch>();
  if (appId !== undefined) {
    const bot = await activeBot(edge, appId);
    for (const channel of bot.channels) {
      if (
        channel.type === 'whatsapp' &&
        channel.externalId &&
        numbers.includes(channel.externalId)
      ) {
        matches.set(channel.externalId, { bot, channel });
      }
    }
    if (!bot.channels.some((c) => c.type === 'whatsapp')) {
      throw new BotwireError('BW_ERR_UNKNOWN_CHANNEL', 'this bot has no whatsapp channel');
    }
    return matches;
  }
  for (const number of numbers) {
    const match = await edge.directory.byWhatsAppNumber(number);
    if (match) matches.set(number, match);
  }
  return matches;
}

export async function whatsappCallback(ctx: Context, edge: Edge, appId?: string): Promise<void> {
  await checkBeforeBody(ctx, edge, appId);
  const body = await readJson(ctx, edge.bodyLimitBytes, edge.bodyTimeoutMs);
  const matches = await matchNumbers(edge, numbersIn(body.json), appId);
  if (matches.size === 0) {
    if (appId !== undefined)
      throw new BotwireError(
        'BW_ERR_UNKNOWN_CHANNEL',
        'no number in the payload belongs to this bot',
      );
    await validateCallback(edge, 'http/whatsapp-callback', body, {
      platform: 'whatsapp',
      authentic: false,
    });
    throw new BotwireError('BW_ERR_UNKNOWN_BOT', 'no bot has the phone_number_id of this payload');
  }
  const active = [...matches.values()].filter((m) => m.bot.active);
  if (active.length === 0)
    throw new BotwireError('BW_ERR_BOT_INACTIVE', 'this bot is switched off');

  const signature = ctx.get('x-hub-signature-256') || undefined;
  for (const { channel } of matches.values()) {
    const appSecret =
      channel.secrets.type === 'whatsapp' ? channel.secrets.details.app_secret : undefined;
    if (appSecret && !signatureMatches(signature, body.raw, appSecret)) {
      throw new BotwireError(
        'BW_ERR_BAD_SIGNATURE',
        signature
          ? 'X-Hub-Signature-256 does not match the body'
          : 'the X-Hub-Signature-256 header is missing',
      );
    }
  }
  const payload = await validateCallback<Payload>(edge, 'http/whatsapp-callback', body, {
    platform: 'whatsapp',
    authentic: true,
    appId: active[0]?.bot.appId,
  });

  const receivedAt = new Date().toISOString();
  const outgoing: OnceMessage[] = [];
  for (const entry of payload.entry) {
    for (const { field, value } of entry.changes) {
      const match = matches.get(value.metadata.phone_number_id);
      if (field !== 'messages' || !match?.bot.active) continue;
      const base = {
        app_id: match.bot.appId,
        channel_id: match.channel.id,
        channel_type: 'whatsapp',
        received_at: receivedAt,
        metadata: value.metadata,
      };
      for (const message of value.messages ?? []) {
        const contact =
          value.contacts?.find((c) => c.wa_id === message.from) ?? value.contacts?.[0];
        outgoing.push({
          id: `whatsapp:${value.metadata.phone_number_id}:${message.id}`,
          message: {
            source: 'whatsapp',
            turn_id: randomUUID(),
            ordering_key: chatOrderingKey(match.bot.appId, message.from),
            intent: 'channel_in',
            bot_input: { kind: 'message', ...base, contact, message },
          },
        });
      }
      for (const status of value.statuses ?? []) {
        outgoing.push({
          // A message moves through sent, delivered, read: each step is recorded once.
          id: `whatsapp-status:${value.metadata.phone_number_id}:${status.id}:${status.status}`,
          message: {
            source: 'whatsapp',
            turn_id: randomUUID(),
            ordering_key: chatOrderingKey(match.bot.appId, status.recipient_id ?? status.id),
            intent: 'channel_in',
            bot_input: { kind: 'status', ...base, status },
          },
        });
      }
    }
  }
  const published = await publishOnce(edge, outgoing);
  ctx.body = { ok: true, accepted: published, duplicates: outgoing.length - published };
}

/** GET: answers `hub.challenge` when `hub.verify_token` is the verify token of a channel. */
export function whatsappVerify(ctx: Context, edge: Edge, appId?: string): void {
  const mode = ctx.query['hub.mode'];
  const token = ctx.query['hub.verify_token'];
  const challenge = ctx.query['hub.challenge'];
  if (mode !== 'subscribe' || typeof token !== 'string' || typeof challenge !== 'string') {
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      'expected hub.mode=subscribe, hub.verify_token and hub.challenge',
      {
        details: {
          problems: [
            { path: '/query', message: 'hub.mode, hub.verify_token, hub.challenge are required' },
          ],
        },
      },
    );
  }
  const channels = edge.directory.whatsappChannelsWithVerifyToken(appId);
  // Compare against every channel, not stopping at a match, so timing tells nothing.
  let matched = false;
  for (const channel of channels) {
    const expected =
      channel.secrets.type === 'whatsapp' ? (channel.secrets.details.verify_token ?? '') : '';
    if (secretsEqual(token, expected)) matched = true;
  }
  if (!matched) throw new BotwireError('BW_ERR_VERIFY_TOKEN', 'the verify token does not match');
  ctx.type = 'text/plain';
  ctx.body = challenge;
}
