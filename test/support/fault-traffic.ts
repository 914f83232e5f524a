/**
 * A steady stream of conversations for fault tests, sent the way the platforms send: each
 * conversation posts its next message only once the previous one was accepted, and a post that
 * fails (connection refused or reset, 5xx) is sent again, unchanged, after a short pause. Replies
 * are read from the stand-in platform's accepted calls; `measure()` turns both into a fault-matrix
 * row.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { whatsappPayload } from './api.ts';
import { busState, type FaultSystem } from './fault-system.ts';
import { waitFor } from './services.ts';

interface Conversation {
  platform: 'telegram' | 'whatsapp';
  chat: string;
  intervalMs: number;
  /** Texts accepted by the edge, in the order they were sent. */
  sent: string[];
}

export interface TrafficOptions {
  /** Names this stream's texts and picks its chats, so streams of one system stay apart. */
  label: string;
  /** Index of this stream in its system (0, 1, ...): its chats are its own. */
  index: number;
  /** Telegram conversations; Telegram paces a private chat to about 1 message/s. @defaultValue 3 */
  telegram?: number;
  /** WhatsApp conversations. @defaultValue 3 */
  whatsapp?: number;
  /** @defaultValue 1200 */
  telegramIntervalMs?: number;
  /** @defaultValue 300 */
  whatsappIntervalMs?: number;
}

export interface FaultRow {
  fault: string;
  sent: number;
  received: number;
  lost: number;
  duplicated: number;
  reordered: number;
  /** Posts the sender had to repeat (connection errors, 503s). */
  retriedPosts: number;
  /** The same by answer: an HTTP status, or the network error's code (ECONNREFUSED) or name. */
  retriedBy: Record<string, number>;
  /** Seconds from the first message to the last reply. */
  seconds: number;
  /** Other figures a fault has to tell (sends the platform refused, dead letters). */
  extra?: Record<string, number>;
}

/** A row with nothing counted yet: the retried posts from `retries`, `ms` as seconds (0.1 s). */
export function emptyRow(fault: string, retries: Map<string, number>, ms: number): FaultRow {
  return {
    fault,
    sent: 0,
    received: 0,
    lost: 0,
    duplicated: 0,
    reordered: 0,
    retriedPosts: [...retries.values()].reduce((a, b) => a + b, 0),
    retriedBy: Object.fromEntries(retries),
    seconds: Math.round(ms / 100) / 10,
  };
}

/** What one conversation's receiving end got of what was sent to it. */
export interface Tally {
  sent: number;
  received: number;
  /** Sent and never received. */
  lost: number;
  /** Copies received beyond the first of each. */
  duplicated: number;
  /** First copies received after one that was sent later. */
  reordered: number;
}

/**
 * Compares what was `sent` (in order, each text once) with what was `received` (in arrival
 * order, with repeats): lost, duplicated and reordered, as a fault-matrix row counts them.
 */
export function tally(sent: readonly string[], received: readonly string[]): Tally {
  const position = new Map(sent.map((text, i) => [text, i]));
  const counts = new Map<string, number>();
  let highest = -1;
  let reordered = 0;
  for (const text of received) {
    counts.set(text, (counts.get(text) ?? 0) + 1);
    if (counts.get(text)! > 1) continue;
    const at = position.get(text) ?? -1;
    if (at < highest) reordered += 1;
    highest = Math.max(highest, at);
  }
  return {
    sent: sent.length,
    received: received.length,
    lost: sent.filter((text) => !counts.has(text)).length,
    duplicated: [...counts.values()].reduce((sum, n) => sum + n - 1, 0),
    reordered,
  };
}

/** Adds a conversation's tally to a row. */
export function addTally(row: FaultRow, t: Tally): FaultRow {
  row.sent += t.sent;
  row.received += t.received;
  row.lost += t.lost;
  row.duplicated += t.duplicated;
  row.reordered += t.reordered;
  return row;
}

export interface Traffic {
  conversations: Conversation[];
  /**
   * Stops sending after each conversation's post in flight is accepted; with `abandon`, posts in
   * flight stop being retried (a test that failed mid-fault).
   */
  stop(abandon?: boolean): Promise<void>;
  /** Replies delivered so far for this stream, per chat, in the order the platform accepted them. */
  replies(): Map<string, string[]>;
  /** Waits until every accepted message has a reply (or `timeoutMs` passes), then a little more for duplicates. */
  settle(timeoutMs?: number): Promise<void>;
  measure(fault: string): FaultRow;
  /** The texts lost, and the replies that came before an earlier message's, for failure messages. */
  anomalies(): { lost: string[]; reordered: string[] };
  /** Replies the platform accepted more than once: chat, text, and when each copy arrived (ms). */
  duplicates(): { chat: string; text: string; at: number[] }[];
  /** Posts repeated so far, by answer: a status, or the network error's name. */
  retries: Map<string, number>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let updateId = 1_000_000;

export function startTraffic(system: FaultSystem, options: TrafficOptions): Traffic {
  const telegram = options.telegram ?? 3;
  const whatsapp = options.whatsapp ?? 3;
  const started = Date.now();
  const conversations: Conversation[] = [
    ...Array.from({ length: telegram }, (_, i) => ({
      platform: 'telegram' as const,
      chat: String(70_000 + options.index * 100 + i),
      intervalMs: options.telegramIntervalMs ?? 1200,
      sent: [],
    })),
    ...Array.from({ length: whatsapp }, (_, i) => ({
      platform: 'whatsapp' as const,
      chat: String(15_550_000_000 + options.index * 100 + i),
      intervalMs: options.whatsappIntervalMs ?? 300,
      sent: [],
    })),
  ];
  const retries = new Map<string, number>();
  let running = true;
  let abandoned = false;

  const post = (c: Conversation, text: string): Promise<void> =>
    postMessage(system, c, text, {
      onRetry: (answer) => retries.set(answer, (retries.get(answer) ?? 0) + 1),
      abandoned: () => abandoned,
    });

  const failures: unknown[] = [];
  const loops = conversations.map(async (c) => {
    for (let n = 1; running && failures.length === 0; n += 1) {
      const text = `${options.label}.${c.chat}.${n}`;
      const begun = Date.now();
      try {
        await post(c, text);
      } catch (error) {
        if (!abandoned) failures.push(error);
        return;
      }
      c.sent.push(text);
      await sleep(Math.max(0, c.intervalMs - (Date.now() - begun)));
    }
  });

  const replies = (): Map<string, string[]> => {
    const byChat = new Map<string, string[]>(conversations.map((c) => [c.chat, []]));
    for (const call of system.stub.calls) {
      if (!call.delivered || call.chat === undefined) continue;
      const list = byChat.get(call.chat);
      if (list && call.text?.startsWith(`echo: ${options.label}.`)) list.push(call.text.slice(6));
    }
    return byChat;
  };

  let lastReplyAt = started;
  const traffic: Traffic = {
    conversations,
    retries,
    async stop(abandon = false) {
      running = false;
      abandoned = abandon;
      await Promise.all(loops);
      if (failures.length > 0) throw failures[0];
    },
    replies,
    anomalies() {
      const got = replies();
      const lost: string[] = [];
      const reordered: string[] = [];
      for (const c of conversations) {
        const received = got.get(c.chat) ?? [];
        const seen = new Set(received);
        lost.push(...c.sent.filter((text) => !seen.has(text)));
        const position = new Map(c.sent.map((text, i) => [text, i]));
        let highest = -1;
        const first = new Set<string>();
        for (const text of received) {
          if (first.has(text)) continue;
          first.add(text);
          const at = position.get(text) ?? -1;
          if (at < highest) reordered.push(`${text} after ${c.sent[highest]}`);
          highest = Math.max(highest, at);
        }
      }
      return { lost, reordered };
    },
    duplicates() {
      const copies = new Map<string, { chat: string; text: string; at: number[] }>();
      const chats = new Set(conversations.map((c) => c.chat));
      for (const call of system.stub.calls) {
        if (!call.delivered || !call.chat || !chats.has(call.chat)) continue;
        if (!call.text?.startsWith(`echo: ${options.label}.`)) continue;
        const key = `${call.chat}/${call.text}`;
        const entry = copies.get(key) ?? { chat: call.chat, text: call.text, at: [] };
        entry.at.push(call.at);
        copies.set(key, entry);
      }
      return [...copies.values()].filter((d) => d.at.length > 1);
    },
    async settle(timeoutMs = 90_000) {
      const missing = (): number => {
        const got = replies();
        let count = 0;
        for (const c of conversations) {
          const seen = new Set(got.get(c.chat));
          count += c.sent.filter((text) => !seen.has(text)).length;
        }
        return count;
      };
      try {
        await waitFor(() => missing() === 0, {
          timeoutMs,
          intervalMs: 100,
          what: 'a reply to every accepted message',
        });
      } catch (error) {
        // The assertions say what is missing; the row records it.
        void error;
      }
      lastReplyAt = Date.now();
      await sleep(1000); // a duplicate would come right behind
    },
    measure(fault) {
      const got = replies();
      const row = emptyRow(fault, retries, lastReplyAt - started);
      for (const c of conversations) addTally(row, tally(c.sent, got.get(c.chat) ?? []));
      return row;
    },
  };
  return traffic;
}

/**
 * Posts one user message to the edge as the platform would (Telegram update, WhatsApp payload),
 * sending it again after 200 ms while the edge cannot be reached or answers 5xx; a 4xx throws.
 */
export async function postMessage(
  system: FaultSystem,
  c: {
    platform: 'telegram' | 'whatsapp';
    chat: string;
    /** The Telegram bot written to; the system's echo bot when absent. */
    bot?: { appId: string; secret: string };
  },
  text: string,
  options: { onRetry?: (answer: string) => void; abandoned?: () => boolean } = {},
): Promise<void> {
  let request: { path: string; headers: Record<string, string>; body: unknown };
  if (c.platform === 'telegram') {
    updateId += 1;
    request = {
      path: `/v2/callback/telegram/${(c.bot ?? system.telegram).appId}`,
      headers: { 'x-telegram-bot-api-secret-token': (c.bot ?? system.telegram).secret },
      body: {
        update_id: updateId,
        message: {
          message_id: updateId,
          date: Math.floor(Date.now() / 1000),
          chat: { id: Number(c.chat), type: 'private' },
          from: { id: Number(c.chat), first_name: 'Ana' },
          text,
        },
      },
    };
  } else {
    request = {
      path: '/callback',
      headers: {},
      body: whatsappPayload(system.whatsapp.number, [
        { id: `wamid.${text}`, body: text, from: c.chat },
      ]),
    };
  }
  const body = JSON.stringify(request.body);
  for (;;) {
    let answer: string;
    try {
      const response = await fetch(`${system.apiUrl}${request.path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...request.headers },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      const reply = await response.text();
      if (response.status === 200) return;
      if (response.status < 500) {
        throw new Error(`the edge refused ${text}: ${response.status} ${reply}`);
      }
      answer = String(response.status);
    } catch (error) {
      if ((error as Error).message.startsWith('the edge refused')) throw error;
      // fetch reports a refused or reset connection as a TypeError whose cause has the code.
      const cause = (error as { cause?: { code?: unknown } }).cause;
      answer = typeof cause?.code === 'string' ? cause.code : (error as Error).name;
    }
    options.onRetry?.(answer);
    if (options.abandoned?.()) throw new Error(`abandoned ${text} (last answer ${answer})`);
    await sleep(200);
  }
}

/** Where fault-matrix rows are written: FAULT_MATRIX_DIR, else a folder under the temp dir. */
export const FAULT_MATRIX_DIR =
  process.env.FAULT_MATRIX_DIR ?? join(tmpdir(), 'botwire-fault-matrix');

/** Prints a fault-matrix row to stderr and writes it to `<FAULT_MATRIX_DIR>/<fault>.json`. */
export function recordRow(row: FaultRow): void {
  const cells = [
    row.fault.padEnd(44),
    `sent ${row.sent}`,
    `received ${row.received}`,
    `lost ${row.lost}`,
    `duplicated ${row.duplicated}`,
    `reordered ${row.reordered}`,
    `retried posts ${row.retriedPosts} ${JSON.stringify(row.retriedBy)}`,
    `${row.seconds} s`,
    ...Object.entries(row.extra ?? {}).map(([key, value]) => `${key} ${value}`),
  ];
  process.stderr.write(`      fault matrix | ${cells.join(' | ')}\n`);
  mkdirSync(FAULT_MATRIX_DIR, { recursive: true });
  const file = row.fault
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
  writeFileSync(join(FAULT_MATRIX_DIR, `${file}.json`), `${JSON.stringify(row, null, 2)}\n`);
}

/**
 * Asserts the row shows nothing lost, nothing reordered and (unless `duplicates` is false)
 * nothing sent twice; on failure the message names the texts and what the topics hold.
 */
export async function expectDelivered(
  system: FaultSystem,
  traffic: Traffic,
  row: FaultRow,
  options: { duplicates?: boolean } = {},
): Promise<void> {
  const checkDuplicates = options.duplicates ?? true;
  const bad = row.lost > 0 || row.reordered > 0 || (checkDuplicates ? row.duplicated > 0 : false);
  if (!bad) return;
  const details = {
    ...traffic.anomalies(),
    ...(checkDuplicates ? { duplicates: traffic.duplicates() } : {}),
    bus: await busState(system).catch((error: unknown) => String(error)),
  };
  throw new Error(
    `${row.fault}: lost ${row.lost}, reordered ${row.reordered}, duplicated ${row.duplicated}\n${JSON.stringify(details, null, 2)}`,
  );
}
