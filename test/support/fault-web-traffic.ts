/**
 * A steady stream of web visitors for fault tests, sent the way the widget sends: each visitor
 * takes a session (POST /v2/web/<app_id>/sessions), keeps its event stream open and resumes it
 * with Last-Event-ID when it drops (`sse-resume.ts`), and posts its next message once the previous
 * one was accepted, resending it with the same client message id after a network error or a 5xx
 * (backing off up to 2 s, for as long as it takes). Replies are what each visitor's event stream
 * showed, so duplicates and order are judged by the visitor's view; `measure()` makes a
 * fault-matrix row of them, and `transcriptProblems()` compares the transcript with what was sent.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { FaultSystem } from './fault-system.ts';
import { addTally, emptyRow, tally, type FaultRow } from './fault-traffic.ts';
import { waitFor } from './services.ts';
import { openResumingSse, type ResumingSse } from './sse-resume.ts';
import type { SseEvent } from './sse.ts';

/** The page origin the visitors' requests carry; the web bot must allow it. */
export const VISITOR_ORIGIN = 'https://shop.example.test';

interface Visitor {
  visitorId: string;
  token: string;
  /** Texts accepted by the edge, in the order they were sent (also their client message ids). */
  sent: string[];
  events: ResumingSse;
}

export interface WebTrafficOptions {
  /** Names this stream's texts, so streams of one system stay apart. */
  label: string;
  appId: string;
  /** @defaultValue 4 */
  visitors?: number;
  /** Between one visitor's messages (ms). @defaultValue 400 */
  intervalMs?: number;
}

export interface WebTraffic {
  visitors: Visitor[];
  /** Stops sending (after each visitor's post in flight is accepted); `abandon` stops retrying. */
  stop(abandon?: boolean): Promise<void>;
  /** Replies shown so far, per visitor, in the order their stream delivered them (with repeats). */
  replies(): Map<string, string[]>;
  /** Waits until every accepted message has its reply on the visitor's stream, then 1 s more. */
  settle(timeoutMs?: number): Promise<void>;
  /** Closes the event streams. */
  close(): Promise<void>;
  measure(fault: string): FaultRow;
  /** What is wrong in the visitors' view, by name, for failure messages (empty when nothing). */
  anomalies(): Record<string, string[]>;
  /** Each sent message's inbound row and reply row once in the transcript, else what is not. */
  transcriptProblems(): Promise<string[]>;
  /** Posts repeated so far, by answer: a status, or the network error's code. */
  retries: Map<string, number>;
}

async function takeSession(system: FaultSystem, appId: string): Promise<Visitor> {
  const response = await fetch(`${system.apiUrl}/v2/web/${appId}/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: VISITOR_ORIGIN },
    body: '{}',
  });
  const json = (await response.json()) as { visitor_id: string; token: string };
  if (response.status !== 201) throw new Error(`no session: ${JSON.stringify(json)}`);
  const url = `${system.apiUrl}/v2/web/${appId}/events?token=${encodeURIComponent(json.token)}`;
  return {
    visitorId: json.visitor_id,
    token: json.token,
    sent: [],
    events: openResumingSse(url, { origin: VISITOR_ORIGIN }),
  };
}

export async function startWebTraffic(
  system: FaultSystem,
  options: WebTrafficOptions,
): Promise<WebTraffic> {
  const started = Date.now();
  const visitors = await Promise.all(
    Array.from({ length: options.visitors ?? 4 }, () => takeSession(system, options.appId)),
  );
  const intervalMs = options.intervalMs ?? 400;
  const retries = new Map<string, number>();
  let running = true;
  let abandoned = false;
  const failures: unknown[] = [];

  const post = async (v: Visitor, text: string): Promise<void> => {
    const body = JSON.stringify({ client_message_id: text, text });
    for (let tries = 0; ; tries += 1) {
      let answer: string;
      let detail: string;
      try {
        const response = await fetch(`${system.apiUrl}/v2/callback/web/${options.appId}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            origin: VISITOR_ORIGIN,
            authorization: `Bearer ${v.token}`,
          },
          body,
          signal: AbortSignal.timeout(10_000),
        });
        const reply = await response.text();
        if (response.status === 202) return;
        if (response.status < 500) throw new Error(`refused ${text}: ${response.status} ${reply}`);
        answer = String(response.status);
        detail = `${answer} ${reply}`;
      } catch (error) {
        if ((error as Error).message.startsWith('refused')) throw error;
        const cause = (error as { cause?: { code?: unknown } }).cause;
        answer = typeof cause?.code === 'string' ? cause.code : (error as Error).name;
        detail = answer;
      }
      retries.set(answer, (retries.get(answer) ?? 0) + 1);
      if (abandoned) throw new Error(`abandoned ${text} (last answer ${detail})`);
      // The widget's backoff, capped at 2 s and without its limit of five resends: on a loaded
      // machine a restarted api can take longer than the widget's 31 s to listen again.
      await sleep(Math.min(2000, 250 * 2 ** tries));
    }
  };

  const loops = visitors.map(async (v, i) => {
    for (let n = 1; running && failures.length === 0; n += 1) {
      const text = `${options.label}.${i}.${n}`;
      const begun = Date.now();
      try {
        await post(v, text);
      } catch (error) {
        if (!abandoned) failures.push(error);
        return;
      }
      v.sent.push(text);
      await sleep(Math.max(0, intervalMs - (Date.now() - begun)));
    }
  });

  const ours = (e: SseEvent): boolean => String(e.data?.text ?? '').includes(`${options.label}.`);
  const replies = (): Map<string, string[]> =>
    new Map(
      visitors.map((v) => [
        v.visitorId,
        v.events
          .events()
          .filter((e) => e.data?.direction === 'out' && ours(e))
          .map((e) => String(e.data.text).replace(/^echo: /, '')),
      ]),
    );

  const missing = (): string[] => {
    const got = replies();
    return visitors.flatMap((v) => {
      const seen = new Set(got.get(v.visitorId));
      return v.sent.filter((text) => !seen.has(text));
    });
  };

  let lastReplyAt = started;
  const traffic: WebTraffic = {
    visitors,
    retries,
    replies,
    async stop(abandon = false) {
      running = false;
      abandoned = abandon;
      await Promise.all(loops);
      if (failures.length > 0) throw failures[0];
    },
    async settle(timeoutMs = 90_000) {
      await waitFor(() => missing().length === 0, {
        timeoutMs,
        intervalMs: 100,
        what: 'a reply to every accepted message on its visitor stream',
      }).catch(() => undefined); // the row and the assertions say what is missing
      lastReplyAt = Date.now();
      await sleep(1000); // a duplicate would come right behind
    },
    async close() {
      await Promise.all(visitors.map((v) => v.events.close()));
    },
    measure(fault) {
      const row = emptyRow(fault, retries, lastReplyAt - started);
      const got = replies();
      for (const v of visitors) addTally(row, tally(v.sent, got.get(v.visitorId) ?? []));
      row.extra = {
        'stream reconnects': visitors.reduce((sum, v) => sum + v.events.reconnects, 0),
      };
      return row;
    },
    anomalies() {
      const problems: Record<string, string[]> = { lost: missing() };
      const got = replies();
      for (const v of visitors) {
        const events = v.events.events();
        // Every event once, by message id and by stream position.
        const ids = events.map((e) => String(e.data?.id));
        const positions = events.map((e) => String(e.id));
        for (const [what, list] of [
          ['repeated message ids', ids],
          ['repeated event ids', positions],
        ] as const) {
          const repeats = list.filter((id, i) => list.indexOf(id) !== i);
          if (repeats.length > 0) (problems[what] ??= []).push(...repeats);
        }
        // The visitor's own messages echoed once each, in order, each before its reply.
        const echoes = events.filter((e) => e.data?.direction === 'in' && ours(e));
        const echoed = echoes.map((e) => String(e.data.text));
        const accepted = v.sent.slice(0, echoed.length);
        if (echoed.join('\n') !== accepted.join('\n'))
          (problems['echoes not as sent'] ??= []).push(`${v.visitorId}: ${echoed.join(', ')}`);
        for (const text of got.get(v.visitorId) ?? []) {
          const echo = events.findIndex((e) => e.data?.id === `in:${text}`);
          const reply = events.findIndex((e) => e.data?.text === `echo: ${text}`);
          if (echo < 0 || echo > reply) (problems['reply before its echo'] ??= []).push(text);
        }
        const order = got.get(v.visitorId) ?? [];
        const sorted = [...new Set(order)];
        const expected = v.sent.filter((text) => sorted.includes(text));
        if (sorted.join('\n') !== expected.join('\n'))
          (problems.reordered ??= []).push(`${v.visitorId}: ${sorted.join(', ')}`);
      }
      return Object.fromEntries(Object.entries(problems).filter(([, list]) => list.length > 0));
    },
    async transcriptProblems() {
      const problems: string[] = [];
      for (const v of visitors) {
        const conversation = v.events.events().find((e) => e.data?.conversation_id)?.data
          .conversation_id as string | undefined;
        if (!conversation) {
          if (v.sent.length > 0) problems.push(`${v.visitorId}: no conversation seen`);
          continue;
        }
        const rows: { direction: string; platform_message_id: string | null; body: any }[] = [];
        for (let after: string | null = null; ;) {
          const page = await system.admin(
            'GET',
            `/v2/conversations/${conversation}/messages?limit=100${after ? `&after=${after}` : ''}`,
          );
          if (page.status !== 200) throw new Error(`transcript: ${JSON.stringify(page.json)}`);
          rows.push(...page.json.items);
          after = page.json.next_after;
          if (!after) break;
        }
        const inbound = rows.filter((r) => r.direction === 'in').map((r) => r.platform_message_id);
        const outbound = rows.filter((r) => r.direction === 'out').map((r) => r.body?.text);
        for (const text of v.sent) {
          const ins = inbound.filter((id) => id === text).length;
          const outs = outbound.filter((t) => t === `echo: ${text}`).length;
          if (ins !== 1 || outs !== 1) problems.push(`${text}: ${ins} in, ${outs} out`);
        }
        if (inbound.length !== v.sent.length || outbound.length !== v.sent.length)
          problems.push(
            `${v.visitorId}: ${inbound.length} in and ${outbound.length} out rows for ${v.sent.length} sent`,
          );
      }
      return problems;
    },
  };
  return traffic;
}
