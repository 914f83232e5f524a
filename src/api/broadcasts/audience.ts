/**
 * A broadcast's audience, made into its recipients' rows when the broadcast is made (docs/
 * outbound.md): every user of the channel, those a filter picks (language, last activity, stored
 * variables), or the platform ids of an uploaded CSV. Each row gets the values its message's
 * placeholders take (the CSV's column of that name, else the user's stored variable at that
 * path) and is queued, or skipped with the reason: no conversation with that id (a WhatsApp
 * template opens one for a CSV's number that never wrote), opted out,
 * WhatsApp's window closed for a free-form message, a value missing, or a CSV row repeating an id.
 * The runner judges opt-out, window and values again when it sends.
 */
import type { Knex } from '../../shared/db.ts';
import { BotwireError } from '../../shared/errors.ts';
import { lastInboundAtSql, windowClosedSql } from '../../shared/whatsapp-window.ts';
import { openWhatsAppConversations } from '../../shared/whatsapp-new-conversations.ts';

export type Audience =
  | { kind: 'all' }
  | {
      kind: 'filter';
      language?: string;
      active_since?: string;
      active_before?: string;
      variables?: Record<string, string | number | boolean>;
    }
  | { kind: 'csv'; csv: string };

/** Rows an audience may have. */
export const MAX_RECIPIENTS = 1_000_000;

interface CsvRow {
  seq: number;
  chat_id: string;
  cols: Record<string, string>;
  duplicate: boolean;
}

/**
 * A WhatsApp number as people write it, as WhatsApp gives it: `+44 (0)7700-900 001` and
 * `0044 7700 900001` are `447700900001`. Only a number written in full (with `+` or `00`, or
 * digits alone) is read; anything else (`(415) 555-0100`, no country code) is kept as written,
 * and so matches no number.
 */
export function whatsappNumberOf(given: string): string {
  const compact = given.replace(/\(0\)/g, '').replace(/[\s.-]/g, '');
  if (/^\+[0-9]+$/.test(compact)) return compact.slice(1);
  if (/^00[0-9]+$/.test(compact)) return compact.slice(2);
  return /^[0-9]+$/.test(compact) ? compact : given;
}

/**
 * The CSV's rows by their chat_id, in order; a repeated id is kept, marked. `numbers`: the ids
 * are WhatsApp numbers (`whatsappNumberOf`). SheetJS is loaded at the first CSV (about 30 MiB
 * resident), not with the api.
 */
export async function csvRows(csv: string, numbers = false): Promise<CsvRow[]> {
  const { read, utils } = await import('xlsx/xlsx.mjs');
  const book = read(csv, { type: 'string', raw: true, dense: true });
  const sheet = book.Sheets[book.SheetNames[0] ?? ''];
  const rows = sheet
    ? utils.sheet_to_json<Record<string, string>>(sheet, { raw: false, defval: '' })
    : [];
  if (rows.length === 0 || !('chat_id' in rows[0]!)) {
    throw new BotwireError(
      'BW_ERR_SCHEMA',
      'the CSV needs a header row with a chat_id column, and a row under it',
    );
  }
  if (rows.length > MAX_RECIPIENTS)
    throw new BotwireError('BW_ERR_SCHEMA', `the CSV has more than ${MAX_RECIPIENTS} rows`);
  const seen = new Set<string>();
  return rows.map((row, i) => {
    const { chat_id: raw, ...cols } = row;
    const given = String(raw ?? '').trim();
    const chatId = numbers ? whatsappNumberOf(given) : given;
    const duplicate = seen.has(chatId);
    seen.add(chatId);
    // Empty cells are values missing, not empty texts.
    const present = Object.fromEntries(Object.entries(cols).filter(([, v]) => v !== ''));
    return { seq: i + 1, chat_id: chatId, cols: present, duplicate };
  });
}

export interface AudienceInput {
  broadcastId: string;
  appId: string;
  channelId: string;
  audience: Audience;
  /** The message's placeholder paths. */
  paths: string[];
  /** A free-form message on WhatsApp: users whose window closed are skipped. */
  windowed: boolean;
  /** A WhatsApp template: a CSV's numbers that never wrote get a conversation opened. */
  opens: boolean;
  /** WhatsApp: a CSV's ids are phone numbers, written as people write them (+44 7700-900001). */
  numbers: boolean;
}

export interface RecipientCounts {
  total: number;
  queued: number;
  /** Queued recipients whose WhatsApp window is closed: a template starts a conversation. */
  closed: number;
  skipped: Record<string, number>;
}

/**
 * Writes the broadcast's recipients (one statement) and resolves to how many there are by state
 * and reason.
 */
export async function writeRecipients(db: Knex, input: AudienceInput): Promise<RecipientCounts> {
  const { audience } = input;
  const rows = audience.kind === 'csv' ? await csvRows(audience.csv, input.numbers) : [];
  if (input.opens) {
    await openWhatsAppConversations(
      db,
      input.appId,
      input.channelId,
      rows.map((row) => row.chat_id),
    );
  }
  const filter = audience.kind === 'filter' ? audience : undefined;
  // The audience as rows of (seq, conversation, chat id, CSV columns, duplicate).
  const source =
    audience.kind === 'csv'
      ? `select x.seq, c.id as conversation_id, x.chat_id, x.cols, x.duplicate
         from jsonb_to_recordset(cast(:rows as jsonb)) as x (seq int, chat_id text, cols jsonb, duplicate boolean)
         left join conversations c on c.channel_id = :channel and c.chat_id = x.chat_id`
      : `select (row_number() over (order by c.created_at, c.id))::int as seq, c.id as conversation_id,
           c.chat_id, '{}'::jsonb as cols, false as duplicate
         from conversations c
         left join conversation_state s on s.conversation_id = c.id
         where c.channel_id = :channel
           and (cast(:language as text) is null or c.language = :language)
           and (cast(:since as timestamptz) is null or c.last_message_at >= :since)
           and (cast(:before as timestamptz) is null or c.last_message_at < :before)
           and (cast(:vars as jsonb) is null or coalesce(s.state->'vars', '{}') @> :vars)`;
  const result: unknown = await db.raw(
    `with audience as (${source}),
     valued as (
       select a.*, c.opted_out_at, v.vals, v.found,
         ${lastInboundAtSql('a.conversation_id')} as last_inbound_at
       from audience a
       left join conversations c on c.id = a.conversation_id
       left join conversation_state s on s.conversation_id = a.conversation_id
       cross join lateral (
         select coalesce(jsonb_object_agg(p, val) filter (where val is not null), '{}') as vals,
           count(val)::int as found
         from jsonb_array_elements_text(cast(:paths as jsonb)) p
         cross join lateral (select coalesce(a.cols->>p,
           s.state->'vars' #>> string_to_array(p, '.')) as val) x
       ) v
     ),
     written as (
       insert into broadcast_recipients (broadcast_id, seq, conversation_id, chat_id, values, state, reason)
       select :id, seq, conversation_id, chat_id, vals, case when reason is null then 'queued' else 'skipped' end, reason
       from (
         select *, case
           when duplicate then 'duplicate'
           when conversation_id is null then 'no_conversation'
           when opted_out_at is not null then 'opted_out'
           when found < jsonb_array_length(cast(:paths as jsonb)) then 'missing_value'
           when :windowed and ${windowClosedSql('last_inbound_at')}
             then 'window_closed'
         end as reason
         from valued
       ) r
       returning seq, state, reason
     )
     select w.state, w.reason,
       ${windowClosedSql('v.last_inbound_at')} as closed,
       count(*)::int as n
     from written w join valued v on v.seq = w.seq
     group by 1, 2, 3`,
    {
      id: input.broadcastId,
      channel: input.channelId,
      rows: JSON.stringify(rows),
      paths: JSON.stringify(input.paths),
      windowed: input.windowed,
      language: filter?.language ?? null,
      since: filter?.active_since ?? null,
      before: filter?.active_before ?? null,
      vars: filter?.variables ? JSON.stringify(filter.variables) : null,
    },
  );
  const counts = (
    result as { rows: { state: string; reason: string | null; closed: boolean; n: number }[] }
  ).rows;
  const skipped: Record<string, number> = {};
  let queued = 0;
  let closed = 0;
  let total = 0;
  for (const row of counts) {
    total += row.n;
    if (row.state === 'queued') {
      queued += row.n;
      if (row.closed) closed += row.n;
    } else skipped[row.reason ?? 'unknown'] = (skipped[row.reason ?? 'unknown'] ?? 0) + row.n;
  }
  if (total > MAX_RECIPIENTS)
    throw new BotwireError('BW_ERR_SCHEMA', `the audience has more than ${MAX_RECIPIENTS} users`);
  return { total, queued, closed, skipped };
}
