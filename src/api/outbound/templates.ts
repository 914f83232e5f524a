/**
 * A bot's WhatsApp message templates (docs/outbound.md): synced from its Business Account through
 * the Business Management API (`GET /<business_account_id>/message_templates`, paged, at
 * WHATSAPP_API_URL), kept in `whatsapp_templates`, listed, and checked before one is sent: it
 * must exist for the channel and language, be approved, and get one text per placeholder
 * (`{{1}}`, `{{2}}`, …) of its header and body.
 */
import type { ChannelRecord } from '../../shared/bots/types.ts';
import type { Knex } from '../../shared/db.ts';
import { BotwireError } from '../../shared/errors.ts';
import { failureCause } from '../../shared/failure-cause.ts';
import type { TemplateParameters } from '../../shared/messages.ts';

/** A template's component as Meta describes it (HEADER, BODY, FOOTER, BUTTONS). */
interface Component {
  type: string;
  format?: string;
  text?: string;
  [key: string]: unknown;
}

export interface TemplateRow {
  channel_id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: Component[];
  synced_at: Date;
}

/** Pages read at most per sync (100 templates each): Meta allows 250 to 6,000 per account. */
const MAX_PAGES = 100;

/** How many placeholders a component's text holds: its highest `{{n}}`. */
function placeholders(text: string | undefined): number {
  let most = 0;
  for (const match of (text ?? '').matchAll(/\{\{\s*(\d+)\s*\}\}/g))
    most = Math.max(most, Number(match[1]));
  return most;
}

/** The placeholders of a template's text header and body. */
export function placeholdersOf(components: Component[]): { header: number; body: number } {
  const of = (type: string) => components.find((c) => c.type.toUpperCase() === type);
  const header = of('HEADER');
  return {
    header:
      header && (header.format ?? 'TEXT').toUpperCase() === 'TEXT' ? placeholders(header.text) : 0,
    body: placeholders(of('BODY')?.text),
  };
}

/** The body as the user reads it, its placeholders filled. */
export function bodyText(components: Component[], parameters: TemplateParameters): string {
  const body = components.find((c) => c.type.toUpperCase() === 'BODY')?.text ?? '';
  return body.replace(
    /\{\{\s*(\d+)\s*\}\}/g,
    (whole, n: string) => parameters.body?.[Number(n) - 1] ?? whole,
  );
}

/**
 * Reads every template of the channel's Business Account and makes the stored ones the same.
 * @returns how many it holds.
 * @throws BW_ERR_UNSUPPORTED without a business_account_id; BW_ERR_UPSTREAM when Meta cannot be
 *   read or refuses (its message kept; the access token never is)
 */
export async function syncTemplates(
  db: Knex,
  deps: { fetch: typeof fetch; whatsappApiUrl: string },
  channel: ChannelRecord,
): Promise<number> {
  const secrets = channel.secrets;
  if (secrets.type !== 'whatsapp' || !secrets.details.business_account_id) {
    throw new BotwireError(
      'BW_ERR_UNSUPPORTED',
      'templates are synced for WhatsApp channels with a business_account_id',
    );
  }
  const { access_token: token, business_account_id: account } = secrets.details;
  const found: Omit<TemplateRow, 'synced_at'>[] = [];
  let url: string | undefined =
    `${deps.whatsappApiUrl}/${account}/message_templates?limit=100&fields=name,language,status,category,components`;
  for (let page = 0; url && page < MAX_PAGES; page += 1) {
    let response: Response;
    try {
      response = await deps.fetch(url, {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new BotwireError(
        'BW_ERR_UPSTREAM',
        `WhatsApp could not be reached (${failureCause(error)})`,
        {
          cause: error,
        },
      );
    }
    const answer = (await response.json().catch(() => ({}))) as {
      data?: {
        name: string;
        language: string;
        status: string;
        category: string;
        components?: Component[];
      }[];
      paging?: { next?: string };
      error?: { message?: string; code?: number };
    };
    if (!response.ok || !Array.isArray(answer.data)) {
      throw new BotwireError(
        'BW_ERR_UPSTREAM',
        `WhatsApp refused the template list: ${answer.error?.message ?? `HTTP ${response.status}`}`,
        { details: { whatsapp: { status: response.status, code: answer.error?.code ?? null } } },
      );
    }
    for (const t of answer.data) {
      found.push({
        channel_id: channel.id,
        name: t.name,
        language: t.language,
        category: t.category,
        status: t.status,
        components: t.components ?? [],
      });
    }
    url = answer.paging?.next;
  }
  await db.transaction(async (trx) => {
    await trx('whatsapp_templates').where('channel_id', channel.id).delete();
    if (found.length > 0) {
      await trx('whatsapp_templates').insert(
        found.map((t) => ({
          ...t,
          app_id: channel.appId,
          components: JSON.stringify(t.components),
        })),
      );
    }
  });
  return found.length;
}

/** The bot's templates, by channel, name and language. */
export async function listTemplates(db: Knex, appId: string): Promise<TemplateRow[]> {
  const rows: unknown = await db('whatsapp_templates')
    .where('app_id', appId)
    .orderBy(['channel_id', 'name', 'language'])
    .select('channel_id', 'name', 'language', 'category', 'status', 'components', 'synced_at');
  return rows as TemplateRow[];
}

/**
 * The template to send, checked: it exists for the channel and language, is approved, and the
 * parameters fill its placeholders exactly.
 * @throws BW_ERR_TEMPLATE naming what is wrong; nothing is sent
 */
export async function checkedTemplate(
  db: Knex,
  channelId: string,
  wanted: { name: string; language: string; parameters?: TemplateParameters },
): Promise<{ parameters: TemplateParameters; text: string }> {
  const found: unknown = await db('whatsapp_templates')
    .where({ channel_id: channelId, name: wanted.name, language: wanted.language })
    .first('status', 'components');
  const row = found as Pick<TemplateRow, 'status' | 'components'> | undefined;
  const refuse = (message: string, details: Record<string, unknown> = {}): never => {
    throw new BotwireError('BW_ERR_TEMPLATE', message, {
      details: { name: wanted.name, language: wanted.language, ...details },
    });
  };
  if (!row)
    return refuse('no template of this channel has this name and language (sync the templates?)');
  if (row.status !== 'APPROVED')
    return refuse(`the template is ${row.status}, not APPROVED`, { status: row.status });
  const want = placeholdersOf(row.components);
  const parameters = wanted.parameters ?? {};
  for (const part of ['header', 'body'] as const) {
    const given = parameters[part]?.length ?? 0;
    if (given !== want[part]) {
      refuse(`the template's ${part} takes ${want[part]} parameters; ${given} were given`, {
        component: part,
        expected: want[part],
        given,
      });
    }
  }
  return { parameters, text: bodyText(row.components, parameters) };
}
