/**
 * A bot's WhatsApp message templates (docs/outbound.md): synced from its Business Account through
 * the Business Management API (`GET /<business_account_id>/message_templates`, paged, at
 * WHATSAPP_API_URL), kept in `whatsapp_templates`, listed, and checked before one is sent: it
 * must exist for the channel and language, be approved, and get one text per placeholder
 * (`{{1}}`, `{{2}}`, …) of its header and body, the media of an image, video or document header,
 * and the address end of each URL button with a placeholder.
 */
import type { ChannelRecord } from '../../shared/bots/types.ts';
import type { Knex } from '../../shared/db.ts';
import { BotwireError } from '../../shared/errors.ts';
import { failureCause } from '../../shared/failure-cause.ts';
import type { TemplateMediaType, TemplateParameters } from '../../shared/messages.ts';

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

/** A component's type, upper case ('' when Meta gave none). */
const typeOf = (component: Component): string => String(component.type ?? '').toUpperCase();

/** A header's format, upper case (TEXT when Meta gave none). */
const formatOf = (component: Component | undefined): string =>
  String(component?.format ?? 'TEXT').toUpperCase();

/** How many placeholders a component's text holds: its highest `{{n}}`. */
function placeholders(text: string | undefined): number {
  let most = 0;
  for (const match of (text ?? '').matchAll(/\{\{\s*(\d+)\s*\}\}/g))
    most = Math.max(most, Number(match[1]));
  return most;
}

/**
 * A template's parameters as a request gives them (schemas/http/outbound-message.json): the
 * media header's kind and the buttons' places are the template's, added by `checkedTemplate`.
 */
export interface TemplateParametersInput {
  header?: string[];
  body?: string[];
  header_media?: { link: string; filename?: string };
  buttons?: { text: string }[];
}

/** What a template takes when it is sent (the template list's `parameters`). */
export interface TemplateNeeds {
  /** Texts of its text header's placeholders. */
  header: number;
  /** Texts of its body's placeholders. */
  body: number;
  /** The media its header shows, fetched from a link; null for a text header or none. */
  header_media: TemplateMediaType | null;
  /** Address ends of its URL buttons that end in a placeholder. */
  buttons: number;
}

const MEDIA_HEADERS: readonly string[] = ['IMAGE', 'VIDEO', 'DOCUMENT'];

/** A template's buttons, as Meta lists them in its BUTTONS component. */
function buttonsOf(components: Component[]): { type?: unknown; url?: unknown }[] {
  const buttons = components.find((c) => typeOf(c) === 'BUTTONS')?.buttons;
  return Array.isArray(buttons) ? (buttons as { type?: unknown; url?: unknown }[]) : [];
}

/** The indexes of the URL buttons whose address ends in a placeholder (`…/{{1}}`). */
function dynamicUrlButtons(components: Component[]): number[] {
  return buttonsOf(components).flatMap((b, index) =>
    String(b.type).toUpperCase() === 'URL' &&
    typeof b.url === 'string' &&
    /\{\{\s*1\s*\}\}/.test(b.url)
      ? [index]
      : [],
  );
}

/** What a template takes: its placeholders' texts, its header's media, its buttons' address ends. */
export function placeholdersOf(components: Component[]): TemplateNeeds {
  const of = (type: string) => components.find((c) => typeOf(c) === type);
  const header = of('HEADER');
  const format = formatOf(header);
  return {
    header: header && format === 'TEXT' ? placeholders(header.text) : 0,
    body: placeholders(of('BODY')?.text),
    header_media: MEDIA_HEADERS.includes(format)
      ? (format.toLowerCase() as TemplateMediaType)
      : null,
    buttons: dynamicUrlButtons(components).length,
  };
}

/**
 * What a template needs that botwire does not send, which Meta would refuse the send without: a
 * location header, named placeholders, a button to fill other than a URL's end (a code to copy,
 * a one-time password).
 */
function needsWhatBotwireDoesNotSend(components: Component[]): string | undefined {
  for (const c of components) {
    const type = typeOf(c);
    const format = formatOf(c);
    if (type === 'HEADER' && format !== 'TEXT' && !MEDIA_HEADERS.includes(format))
      return `a ${format.toLowerCase()} header`;
    if ((type === 'HEADER' || type === 'BODY') && /\{\{\s*[^\d\s}][^}]*\}\}/.test(c.text ?? ''))
      return 'named parameters';
  }
  for (const button of buttonsOf(components)) {
    const kind = String(button.type).toUpperCase();
    if (kind === 'COPY_CODE' || kind === 'OTP') return `a ${kind.toLowerCase()} button`;
    if (kind !== 'URL' && /\{\{/.test(JSON.stringify(button))) return 'button parameters';
  }
  return undefined;
}

/** The body as the user reads it, its placeholders filled. */
export function bodyText(
  components: Component[],
  parameters: Pick<TemplateParameters, 'body'>,
): string {
  const body = components.find((c) => typeOf(c) === 'BODY')?.text ?? '';
  return body.replace(
    /\{\{\s*(\d+)\s*\}\}/g,
    (whole, n: string) => parameters.body?.[Number(n) - 1] ?? whole,
  );
}

const text = (value: unknown, max: number): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= max;

/** A template of Meta's list as kept, or undefined when it lacks what one has. */
function templateOf(
  value: unknown,
): Pick<TemplateRow, 'name' | 'language' | 'category' | 'status' | 'components'> | undefined {
  const t = value as Record<string, unknown> | null;
  if (typeof t !== 'object' || t === null) return undefined;
  const { name, language, category, status, components } = t;
  if (!text(name, 512) || !text(language, 16) || !text(category, 64) || !text(status, 64))
    return undefined;
  const parts = Array.isArray(components)
    ? components.filter((c): c is Component => typeof c === 'object' && c !== null)
    : [];
  return { name, language, category, status, components: parts };
}

/**
 * The next page's URL, only on WhatsApp's own address (WHATSAPP_API_URL): the access token goes
 * with it, and nowhere else.
 */
function nextPage(next: unknown, base: string): string | undefined {
  if (typeof next !== 'string' || next === '') return undefined;
  let same = false;
  try {
    same = new URL(next).origin === new URL(base).origin;
  } catch {
    // Not a URL: refused below.
  }
  if (!same) {
    throw new BotwireError(
      'BW_ERR_UPSTREAM',
      'WhatsApp named a next page away from WHATSAPP_API_URL: not followed, not synced',
    );
  }
  return next;
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
    for (const t of answer.data as unknown[]) {
      const template = templateOf(t);
      // Not one Meta would list (no name, language, status or category): skipped, not stored.
      if (!template) continue;
      // One row per name and language: a list repeating one keeps the first.
      if (found.some((f) => f.name === template.name && f.language === template.language)) continue;
      found.push({ channel_id: channel.id, ...template });
    }
    url = nextPage(answer.paging?.next, deps.whatsappApiUrl);
  }
  // A list longer than we read is not kept in part (what was not read would be deleted).
  if (url) {
    throw new BotwireError(
      'BW_ERR_UPSTREAM',
      `WhatsApp lists more than ${MAX_PAGES * 100} templates for this account: not synced`,
    );
  }
  await db.transaction(async (trx) => {
    // One sync of a channel at a time: two at once (a double click) would insert the same rows.
    await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [
      `whatsapp_templates:${channel.id}`,
    ]);
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
  wanted: { name: string; language: string; parameters?: TemplateParametersInput },
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
  const unsent = needsWhatBotwireDoesNotSend(row.components);
  if (unsent) return refuse(`the template needs ${unsent}, which botwire does not send yet`);
  const want = placeholdersOf(row.components);
  const given = wanted.parameters ?? {};
  for (const part of ['header', 'body', 'buttons'] as const) {
    const count = given[part]?.length ?? 0;
    if (count !== want[part]) {
      const what = part === 'buttons' ? 'URL buttons take' : `${part} takes`;
      refuse(`the template's ${what} ${want[part]} parameters; ${count} were given`, {
        component: part,
        expected: want[part],
        given: count,
      });
    }
  }
  const media = given.header_media;
  if (want.header_media && !media)
    refuse(`the template's header shows ${want.header_media}: give its header_media link`, {
      component: 'header_media',
    });
  if (!want.header_media && media)
    refuse('the template has no media header: header_media is not taken', {
      component: 'header_media',
    });
  const indexes = dynamicUrlButtons(row.components);
  const parameters: TemplateParameters = {
    ...(given.header ? { header: given.header } : {}),
    ...(given.body ? { body: given.body } : {}),
    ...(media && want.header_media
      ? {
          header_media: {
            type: want.header_media,
            link: media.link,
            // Only a document has a file name.
            ...(want.header_media === 'document' && media.filename
              ? { filename: media.filename }
              : {}),
          },
        }
      : {}),
    ...(given.buttons && given.buttons.length > 0
      ? { buttons: given.buttons.map((b, i) => ({ index: indexes[i] ?? i, text: b.text })) }
      : {}),
  };
  return { parameters, text: bodyText(row.components, parameters) };
}
