/**
 * Messages as a person sees them, whichever way they reached the console: a transcript row of the
 * admin API (`GET /v2/conversations/:id/messages`, its `body` the internal message) or a web
 * visitor's SSE event (`GET /v2/web/:app_id/events`). `message-view.tsx` draws this one shape.
 * Plain TypeScript (no DOM), so it is unit tested.
 */
import type { TranscriptRow, WebEvent } from '../../api/types.ts';

export interface ChatButton {
  id: string;
  title: string;
}

export interface ChatListRow {
  id: string;
  title: string;
  description?: string;
}

export interface ChatListSection {
  title?: string;
  rows: ChatListRow[];
}

export interface ChatList {
  /** The label of the button that opens the list. */
  button: string;
  sections: ChatListSection[];
}

/** Who a line belongs to: the person, the bot, or the flow itself (a note, never sent). */
export type MessageSide = 'user' | 'bot' | 'note';

export interface MessageView {
  /** Stable: a transcript row's id, or a web event's `id`. */
  key: string;
  side: MessageSide;
  messageType: string;
  text?: string;
  buttons?: ChatButton[];
  list?: ChatList;
  /** `url` is absent for media only the platform can serve (a Telegram file id). */
  image?: { url?: string; caption?: string };
  document?: { url?: string; filename?: string; caption?: string };
  audio?: { url?: string; transcript?: string };
  location?: { latitude: number; longitude: number };
  /** A button press or list pick: the option's id and, when known, its title. */
  choice?: { id: string; title?: string };
  /** ISO 8601. */
  createdAt: string;
  /** Not (yet) delivered: sent by the test chat and not echoed, or refused by the platform. */
  delivery?: { status: 'pending' | 'failed'; error?: string };
  /**
   * Who wrote it when not the bot nor the flow: an agent, during a handoff (their reply on the
   * bot side, or an internal note, never sent), named as {@link actorName} reads their actor.
   */
  by?: string;
  /** The bot wrote it first, asked by {@link by} (docs/outbound.md), not as an agent's reply. */
  writtenFirst?: boolean;
}

/**
 * The turn ids of messages the bot wrote first (`POST /v2/bots/<app_id>/messages`,
 * src/api/outbound/routes.ts; docs/outbound.md).
 */
const WRITTEN_FIRST = /^out:/;

/**
 * A person as an actor names them (`account:<email>`, `token:<id>@<email>`, `admin-key`): their
 * email, or "the admin key".
 */
export function actorName(actor: string): string {
  if (actor === 'admin-key') return 'the admin key';
  if (actor.startsWith('account:')) return actor.slice('account:'.length);
  const token = /^token:[^@]+@(.+)$/.exec(actor);
  return token?.[1] ?? actor;
}

type Json = Record<string, unknown>;

function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Json)
    : {};
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function withDefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * A media reference's URL when a browser can load it (http or https only, so a flow cannot put a
 * `javascript:` link in front of an operator); platform ids and inline bytes have none.
 */
function mediaUrl(media: unknown): string | undefined {
  const url = str(record(media).url);
  return url !== undefined && /^https?:\/\//i.test(url) ? url : undefined;
}

function buttonsOf(value: unknown): ChatButton[] {
  if (!Array.isArray(value)) return [];
  return value
    .map(record)
    .filter((b) => str(b.id) !== undefined)
    .map((b) => ({ id: str(b.id)!, title: str(b.title) ?? str(b.id)! }));
}

function sectionsOf(value: unknown): ChatListSection[] {
  if (!Array.isArray(value)) return [];
  return value.map(record).map((section) =>
    withDefined({
      title: str(section.title),
      rows: (Array.isArray(section.rows) ? section.rows : [])
        .map(record)
        .filter((row) => str(row.id) !== undefined)
        .map((row) =>
          withDefined({
            id: str(row.id)!,
            title: str(row.title) ?? str(row.id)!,
            description: str(row.description),
          }),
        ),
    }),
  );
}

const DIALOG_NOTES: Record<string, string> = {
  start: 'The conversation started.',
  reset: 'The conversation was reset.',
};

/** A transcript row as shown; `note` rows and dialog events are the flow's, not the bot's words. */
export function fromTranscriptRow(row: TranscriptRow): MessageView {
  const body = record(row.body);
  const base = {
    key: String(row.id),
    messageType: row.message_type,
    createdAt: row.created_at,
  };
  const by = row.sent_by ? { by: actorName(row.sent_by) } : {};
  if (row.message_type === 'note' || row.status === 'note') {
    return { ...base, side: 'note', ...by, text: str(body.text) ?? 'A note of the flow.' };
  }
  if (row.message_type === 'dialog') {
    const event = str(body.event) ?? '';
    return { ...base, side: 'note', text: DIALOG_NOTES[event] ?? `Conversation event: ${event}.` };
  }
  const side: MessageSide = row.direction === 'in' ? 'user' : 'bot';
  const delivery =
    row.status === 'failed'
      ? { delivery: { status: 'failed' as const, ...(row.error ? { error: row.error } : {}) } }
      : {};
  const first =
    row.direction === 'out' && row.turn_id && WRITTEN_FIRST.test(row.turn_id)
      ? { writtenFirst: true }
      : {};
  return { ...base, side, ...delivery, ...by, ...first, ...contentOf(row.message_type, body) };
}

function contentOf(type: string, body: Json): Partial<MessageView> {
  switch (type) {
    case 'text':
      return { text: str(body.text) ?? '' };
    case 'button':
      return { text: str(body.text) ?? '', buttons: buttonsOf(body.buttons) };
    case 'option_list':
      return {
        text: str(body.text) ?? '',
        list: { button: str(body.button_text) ?? 'Options', sections: sectionsOf(body.sections) },
      };
    case 'image':
      return { image: withDefined({ url: mediaUrl(body.media), caption: str(body.caption) }) };
    case 'document':
      return {
        document: withDefined({
          url: mediaUrl(body.media),
          filename: str(body.filename),
          caption: str(body.caption),
        }),
      };
    case 'audio':
      return { audio: withDefined({ url: mediaUrl(body.media), transcript: str(body.text) }) };
    case 'location': {
      const { latitude, longitude } = body;
      return typeof latitude === 'number' && typeof longitude === 'number'
        ? { location: { latitude, longitude } }
        : { text: '(a location)' };
    }
    case 'interactive_reply':
      return {
        choice: withDefined({ id: str(body.choice_id) ?? '', title: str(body.title) }),
      };
    default:
      // A type this console does not know yet: say so rather than show nothing.
      return { text: str(body.text) ?? `(a ${type} message)` };
  }
}

/**
 * The title of every option the bot offered so far, by id: a web echo of a press carries only
 * the option's id, and the person pressed a title.
 */
export function optionTitles(messages: readonly MessageView[]): Map<string, string> {
  const titles = new Map<string, string>();
  for (const message of messages) {
    for (const button of message.buttons ?? []) titles.set(button.id, button.title);
    for (const section of message.list?.sections ?? []) {
      for (const row of section.rows) titles.set(row.id, row.title);
    }
  }
  return titles;
}

/**
 * A press names the option by its title when an earlier message offered it: a web or Telegram
 * press records only the option's id, and the person pressed a title.
 */
export function withChoiceTitles(messages: readonly MessageView[]): MessageView[] {
  const titles = new Map<string, string>();
  return messages.map((message) => {
    for (const [id, title] of optionTitles([message])) titles.set(id, title);
    if (!message.choice || message.choice.title) return message;
    const title = titles.get(message.choice.id);
    return title ? { ...message, choice: { ...message.choice, title } } : message;
  });
}

/** A web visitor's SSE event when it has what the chat needs to show it; else undefined. */
export function readWebEvent(data: unknown): WebEvent | undefined {
  const event = record(data);
  const named = ['id', 'message_type', 'created_at'].every((k) => typeof event[k] === 'string');
  if (!named || (event.direction !== 'in' && event.direction !== 'out')) return undefined;
  if (event.conversation_id !== undefined && typeof event.conversation_id !== 'string') {
    return undefined;
  }
  return event as unknown as WebEvent;
}

/** A web visitor's event as shown. */
export function fromWebEvent(
  event: WebEvent,
  titles: ReadonlyMap<string, string> = new Map(),
): MessageView {
  const base: MessageView = {
    key: event.id,
    side: event.direction === 'in' ? 'user' : 'bot',
    messageType: event.message_type,
    createdAt: event.created_at,
  };
  if (event.choice_id !== undefined) {
    const title = titles.get(event.choice_id);
    return { ...base, choice: { id: event.choice_id, ...(title ? { title } : {}) } };
  }
  return withDefined({
    ...base,
    text: event.text,
    buttons: event.buttons,
    list: event.list,
    image: event.image && withDefined({ ...event.image, url: mediaUrl(event.image) }),
    document: event.document && withDefined({ ...event.document, url: mediaUrl(event.document) }),
  });
}

/** A one-line summary (for a list preview or an accessible name). */
export function summaryOf(message: MessageView): string {
  if (message.text) return message.text;
  if (message.choice) return `Chose ${message.choice.title ?? message.choice.id}`;
  if (message.image) return message.image.caption ? `Image: ${message.image.caption}` : 'Image';
  if (message.document) {
    return `Document: ${message.document.filename ?? message.document.caption ?? 'file'}`;
  }
  if (message.audio)
    return message.audio.transcript ? `Voice: ${message.audio.transcript}` : 'Voice';
  if (message.location) return 'Location';
  return `(${message.messageType})`;
}
