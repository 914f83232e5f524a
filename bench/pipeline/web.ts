/**
 * The web channel side of the pipeline bench (BENCH_CHANNELS with `web`): echo bots with a web
 * channel, one visitor session per simulated user, each visitor's event stream held open the
 * whole run as the widget holds it, and each turn posted as the widget posts it
 * (`POST /v2/callback/web/<app_id>` with the visitor's token). A turn is answered when its
 * `echo: <text>` arrives on the visitor's stream; the time is taken as the event has been read.
 */
import { Agent, request, type ClientRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { adminPost, ECHO_FLOW } from './bots.ts';
import type { TurnRequest, User } from './load.ts';
import type { SentMessage } from './platform.ts';

/** Creates `count` echo bots with a web channel each; answers their app ids. */
export async function createWebBots(
  apiOrigin: string,
  adminKey: string,
  count: number,
): Promise<string[]> {
  const appIds: string[] = [];
  for (let b = 0; b < count; b += 1) {
    const created = await adminPost<{ app_id: string }>(apiOrigin, adminKey, '/v2/bots', {
      name: `bench web echo ${b}`,
      flow: ECHO_FLOW,
      channel: { type: 'web', details: { allowed_origins: [] } },
    });
    appIds.push(created.app_id);
  }
  return appIds;
}

/** Opens one visitor session per user, user `u` on bot `u mod bots`, 16 at a time. */
export async function createVisitors(
  apiOrigin: string,
  appIds: readonly string[],
  users: number,
): Promise<(User & { appId: string })[]> {
  const visitors: (User & { appId: string })[] = new Array<User & { appId: string }>(users);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let u = next++; u < users; u = next++) {
      const appId = appIds[u % appIds.length]!;
      const response = await fetch(`${apiOrigin}/v2/web/${appId}/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      if (response.status !== 201) {
        throw new Error(`POST /v2/web/${appId}/sessions answered ${response.status}`);
      }
      const { visitor_id, token } = (await response.json()) as {
        visitor_id: string;
        token: string;
      };
      visitors[u] = { chatId: visitor_id, path: `/v2/callback/web/${appId}`, secret: token, appId };
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return visitors;
}

/** The visitor's message as the widget posts it: its client message id, unique per turn. */
export const webRequest: TurnRequest = (user, text, updateId) => ({
  body: JSON.stringify({ client_message_id: `bench-${updateId}`, text }),
  headers: { authorization: `Bearer ${user.secret}` },
});

/** Every visitor's event stream, open; `close` ends them. */
export interface WebStreams {
  close(): void;
}

/**
 * Opens the event stream of every visitor and hands each of the bot's messages (`direction`
 * `out`) to `onSend`, as the stand-in platform hands Telegram's. Resolves once every stream has
 * answered 200.
 */
export async function openStreams(
  apiOrigin: string,
  visitors: readonly (User & { appId: string })[],
  onSend: (message: SentMessage) => void,
): Promise<WebStreams> {
  const origin = new URL(apiOrigin);
  // One connection per stream, as each visitor's browser has its own.
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const requests: ClientRequest[] = [];
  const opened = visitors.map(
    (visitor) =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          {
            agent,
            host: origin.hostname,
            port: origin.port,
            path: `/v2/web/${visitor.appId}/events?token=${encodeURIComponent(visitor.secret)}`,
            headers: { accept: 'text/event-stream' },
          },
          (res) => {
            if (res.statusCode !== 200) {
              reject(new Error(`the event stream of ${visitor.chatId} answered ${res.statusCode}`));
              res.resume();
              return;
            }
            resolve();
            res.setEncoding('utf8');
            let buffered = '';
            res.on('data', (chunk: string) => {
              const at = performance.now();
              buffered += chunk;
              // Events end with a blank line; a partial one waits for the rest.
              let end = buffered.indexOf('\n\n');
              for (; end >= 0; end = buffered.indexOf('\n\n')) {
                const event = buffered.slice(0, end);
                buffered = buffered.slice(end + 2);
                const data = event
                  .split('\n')
                  .filter((line) => line.startsWith('data:'))
                  .map((line) => line.slice(5).trimStart())
                  .join('\n');
                if (!data) continue;
                const message = JSON.parse(data) as { direction?: string; text?: string };
                if (message.direction !== 'out') continue;
                onSend({ at, chatId: String(visitor.chatId), text: message.text ?? '' });
              }
            });
            res.on('error', () => undefined);
          },
        );
        req.on('error', reject);
        req.end();
        requests.push(req);
      }),
  );
  const streams = {
    close: () => {
      for (const req of requests) req.destroy();
      agent.destroy();
    },
  };
  try {
    await Promise.all(opened);
  } catch (error) {
    streams.close();
    throw error;
  }
  return streams;
}
