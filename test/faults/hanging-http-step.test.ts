/**
 * Fault: one bot's flow calls an outside HTTP endpoint that never answers, in many conversations
 * at once; each of its turns holds a flow handler slot until the step's timeout. Another bot's
 * replies stay about as fast as without that load: the flow component runs at most
 * CONSUMER_BOT_CONCURRENCY handlers of one bot, so the rest of its slots stay free, and the hung
 * bot's queued messages do not stop the reading of the other bot's.
 */
import { expect } from 'chai';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { whatsappPayload } from '../support/api.ts';
import { startFaultSystem, type FaultSystem } from '../support/fault-system.ts';
import { forEachRedisMode } from '../support/redis-modes.ts';
import { postMessage } from '../support/fault-traffic.ts';
import { waitFor } from '../support/services.ts';

/** Conversations of the bot whose HTTP step hangs, and messages each sends. */
const HUNG_CONVERSATIONS = 40;
const MESSAGES_EACH = 2;
/** The hanging step's timeout (ms): one turn holds its slot three times this long. */
const STEP_TIMEOUT_MS = 30_000;
/** Replies of the other bot measured, before and under the load. */
const SAMPLES = 5;

/** An endpoint on loopback that reads each request and never answers it. */
async function startHangingEndpoint(): Promise<{
  url: string;
  open: () => number;
  seen: () => number;
  close: () => Promise<void>;
}> {
  const open = new Set<ServerResponse>();
  let seen = 0;
  const server = createServer((req, res) => {
    seen += 1;
    open.add(res);
    res.on('close', () => open.delete(res));
    req.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    open: () => open.size,
    seen: () => seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Every answer is followed by three calls to `url`, then a reply. */
function hangingFlow(url: string): Record<string, unknown> {
  const call = (n: number) => ({
    http: { method: 'GET', url: `${url}/step-${n}`, timeout_ms: STEP_TIMEOUT_MS, store: `r${n}` },
  });
  return {
    version: 1,
    start: 'listen',
    states: {
      listen: { wait: { store: 'said' }, next: 'lookup' },
      lookup: {
        actions: [call(1), call(2), call(3), { send: { text: 'looked up: {{said}}' } }],
        next: 'listen',
      },
    },
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

forEachRedisMode('faults: one bot’s flow HTTP step hangs', function (mode) {
  this.timeout(180_000);
  let system: FaultSystem | undefined;
  let endpoint: Awaited<ReturnType<typeof startHangingEndpoint>> | undefined;

  before(async function () {
    this.timeout(180_000);
    endpoint = await startHangingEndpoint();
    // the endpoint is on loopback, which a flow's HTTP step may reach only when allowed
    system = await startFaultSystem({
      redisUrl: mode.url(),
      settings: { FLOW_HTTP_ALLOW: '127.0.0.1/32' },
    });
  });

  after(async () => {
    await system?.close();
    await endpoint?.close();
  });

  /** Sends `text` from a new Telegram chat to the echo bot; the time until its reply (ms). */
  const replyTime = async (
    sys: FaultSystem,
    chat: string,
    text: string,
    timeoutMs = 60_000,
  ): Promise<number> => {
    const begun = Date.now();
    await postMessage(sys, { platform: 'telegram', chat }, text);
    const reply = await waitFor(
      () =>
        sys.stub.calls.find((c) => c.delivered && c.chat === chat && c.text === `echo: ${text}`),
      { timeoutMs, intervalMs: 10, what: `the reply to ${text}` },
    );
    return reply.at - begun;
  };

  it(`when ${HUNG_CONVERSATIONS} conversations of one bot wait on an endpoint that never answers, then another bot’s reply time stays within a small factor of its time without that load`, async () => {
    const sys = system!;
    const hang = endpoint!;
    await replyTime(sys, '80999', 'warm-up'); // the processes' first turn loads and caches more
    const baseline: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      baseline.push(await replyTime(sys, String(81_000 + i), `before.${i}`));
    }

    const number = '5550077';
    const created = await sys.admin('POST', '/v2/bots', {
      name: 'hanging lookups',
      flow: hangingFlow(hang.url),
      channel: { type: 'whatsapp', details: { phone_number_id: number, access_token: 'wa-token' } },
    });
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    const posts: Promise<Response>[] = [];
    for (let m = 0; m < MESSAGES_EACH; m += 1) {
      for (let c = 0; c < HUNG_CONVERSATIONS; c += 1) {
        posts.push(
          fetch(`${sys.apiUrl}/callback`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(
              whatsappPayload(number, [
                {
                  id: `wamid.hang.${c}.${m}`,
                  body: `lookup ${m}`,
                  from: String(15_557_000_000 + c),
                },
              ]),
            ),
          }),
        );
      }
    }
    const answers = await Promise.all(posts);
    expect(answers.map((a) => a.status)).to.deep.equal(answers.map(() => 200));
    // The hung bot's turns hold flow handler slots: as many as it may have, and no more.
    await waitFor(() => hang.open() >= 4, { timeoutMs: 30_000, what: 'hanging HTTP steps' });

    const loaded: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      // Without fair slots this reply waits for a hung turn to end: three steps' timeouts.
      loaded.push(await replyTime(sys, String(82_000 + i), `during.${i}`, STEP_TIMEOUT_MS));
    }
    const openSteps = hang.open();
    process.stderr.write(
      `      hanging HTTP step | reply ms without load ${baseline.join(' ')} (median ${median(baseline)}) | under load ${loaded.join(' ')} (median ${median(loaded)}) | steps hanging ${openSteps}\n`,
    );
    expect(openSteps, 'the hung bot’s steps were still hanging').to.be.at.least(4);
    expect(Math.max(...loaded)).to.be.below(STEP_TIMEOUT_MS / 2);
    expect(median(loaded)).to.be.below(Math.max(median(baseline) * 5, 2000));
  });
});
