/**
 * Both ends of a handoff on a fault system (every component a process): a user who writes on
 * Telegram (through the stand-in platform) or in the web widget (a visitor session and its event
 * stream), and what an agent reads of the conversation through the api's routes.
 */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultSystem, FaultTelegramBot } from './fault-system.ts';
import { postMessage } from './fault-traffic.ts';
import { asAgent, type Agent } from './handoffs.ts';
import { waitFor } from './services.ts';
import { openResumingSse } from './sse-resume.ts';
import { eventsUrl, postVisitorMessage, SHOP_ORIGIN, startSession } from './web.ts';

/** A person chatting with a bot. */
export interface ChatUser {
  platform: 'telegram' | 'web';
  /** Sends a text as the platform would, again after a network error or a 5xx, until accepted. */
  say(text: string): Promise<void>;
  /**
   * What the user was shown so far, in the order it arrived, once per delivery: a text as it is,
   * buttons as `<text> [<title>, ...]`, an image as `[image <url>] <caption>`.
   */
  shown(): string[];
  /** Waits until the user was shown `count` messages; what they were. */
  waitShown(count: number, what: string, timeoutMs?: number): Promise<string[]>;
  close(): Promise<void>;
}

/** One message as the user saw it, in one line (see {@link ChatUser.shown}). */
function render(shown: {
  text?: unknown;
  buttons?: string[];
  image?: unknown;
  caption?: unknown;
}): string {
  const words = (value: unknown) => (typeof value === 'string' ? value : '');
  if (shown.image !== undefined) {
    return `[image ${words(shown.image)}] ${words(shown.caption)}`.trim();
  }
  const text = words(shown.text);
  return shown.buttons && shown.buttons.length > 0 ? `${text} [${shown.buttons.join(', ')}]` : text;
}

function withWait(user: Omit<ChatUser, 'waitShown'>): ChatUser {
  return {
    ...user,
    waitShown: (count, what, timeoutMs = 60_000) =>
      waitFor(() => (user.shown().length >= count ? user.shown() : undefined), {
        timeoutMs,
        what: `${what} (shown so far: ${JSON.stringify(user.shown())})`,
      }),
  };
}

/** A Telegram user in private chat `chat` with `bot`; shown = the sends the platform accepted. */
export function telegramUser(system: FaultSystem, bot: FaultTelegramBot, chat: string): ChatUser {
  return withWait({
    platform: 'telegram',
    say: (text) => postMessage(system, { platform: 'telegram', chat, bot }, text),
    shown: () =>
      system.stub.calls
        .filter((c) => c.chat === chat && c.delivered && c.method.startsWith('send'))
        .filter((c) => c.method !== 'sendChatAction')
        .map((c) => {
          const markup = (
            typeof c.body.reply_markup === 'string'
              ? JSON.parse(c.body.reply_markup)
              : c.body.reply_markup
          ) as { inline_keyboard?: { text: string }[][] } | undefined;
          const buttons = markup?.inline_keyboard?.flat().map((b) => b.text);
          return render({
            text: c.body.text,
            buttons,
            image: c.body.photo,
            caption: c.body.caption,
          });
        }),
    close: async () => undefined,
  });
}

/**
 * A web visitor of `appId` with a session of its own, its event stream open (resumed as the
 * widget does); shown = the outbound `message` events of that stream.
 */
export async function webUser(system: FaultSystem, appId: string): Promise<ChatUser> {
  const session = await startSession(system.edge, appId);
  const events = openResumingSse(eventsUrl(system.edge, appId, session.token), {
    origin: SHOP_ORIGIN,
  });
  return withWait({
    platform: 'web',
    async say(text) {
      for (let tries = 0; ; tries += 1) {
        const answer = await postVisitorMessage(system.edge, appId, session.token, {
          client_message_id: text,
          text,
        }).catch((error: Error) => ({ status: 0, text: error.message }));
        if (answer.status === 202) return;
        if (answer.status >= 400 && answer.status < 500) {
          throw new Error(`the edge refused ${text}: ${answer.status} ${answer.text}`);
        }
        await sleep(Math.min(2000, 250 * 2 ** tries));
      }
    },
    shown: () =>
      events
        .events()
        .filter((e) => e.event === 'message' && e.data?.direction === 'out')
        .map((e) =>
          render({
            text: e.data.text,
            buttons: (e.data.buttons as { title: string }[] | undefined)?.map((b) => b.title),
            image: e.data.image?.url,
            caption: e.data.image?.caption,
          }),
        ),
    close: () => events.close(),
  });
}

/** The open handoff of `appId` as `who` finds it in the inbox (waits until there is one). */
export async function inboxHandoff(
  system: FaultSystem,
  who: Agent,
  appId: string,
): Promise<{ id: string; status: string; queue: string | null; conversation_id: string }> {
  return waitFor(
    async () => {
      const list = await asAgent(system.edge, who, 'GET', `/v2/handoffs?app_id=${appId}`);
      expect(list.status, list.text).to.equal(200);
      return list.json.items[0] as
        { id: string; status: string; queue: string | null; conversation_id: string } | undefined;
    },
    { timeoutMs: 60_000, what: 'a handoff in the inbox' },
  );
}

/** A transcript row as `GET /v2/handoffs/<id>` shows it. */
export interface TranscriptRow {
  direction: 'in' | 'out';
  turn_id: string | null;
  message_type: string;
  body: { text?: string };
  status: string | null;
  sent_by: string | null;
}

/** The handoff as `who` reads it: the row, and its transcript since it began. */
export async function readHandoff(
  system: FaultSystem,
  who: Agent,
  handoffId: string,
): Promise<{ handoff: Record<string, any>; since: TranscriptRow[] }> {
  const one = await asAgent(system.edge, who, 'GET', `/v2/handoffs/${handoffId}`);
  expect(one.status, one.text).to.equal(200);
  return { handoff: one.json, since: one.json.transcript.since as TranscriptRow[] };
}

/** The texts the user wrote since the handoff began, as the agent reads them, in order. */
export async function userMessagesSeen(
  system: FaultSystem,
  who: Agent,
  handoffId: string,
): Promise<string[]> {
  const { since } = await readHandoff(system, who, handoffId);
  return since.filter((r) => r.direction === 'in').map((r) => String(r.body.text));
}
