/**
 * Fault: a bot's analytics while `channel` dies (SIGKILL) mid-way, every component a process of
 * its own, every webhook delivered twice: 200 scripted users (test/support/analytics-scripts.ts,
 * with known drop-offs, re-asks, fallbacks and handoffs) give exactly the figures they give with
 * no fault: nothing counted twice, nothing lost (docs/analytics.md).
 */
import { expect } from 'chai';
import { addTelegramBot, startFaultSystem, type FaultSystem } from '../support/fault-system.ts';
import { FLOW, SCRIPTS, statesTimes, totalsTimes, USERS } from '../support/analytics-scripts.ts';
import { waitFor } from '../support/services.ts';
import { dayOf } from '../../src/shared/utc-day.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Each scripted user this many times: 200 users. */
const TIMES = 20;

describe('faults: analytics while channel is killed', function () {
  this.timeout(420_000);
  let system: FaultSystem | undefined;

  before(async function () {
    this.timeout(180_000);
    system = await startFaultSystem();
  });

  after(async () => {
    await system?.close();
  });

  it('when 200 scripted users talk while channel is killed (SIGKILL) and restarted, every webhook delivered twice, then every figure is exactly what they did', async () => {
    const sys = system!;
    const bot = await addTelegramBot(sys, 'Analytics under a fault', FLOW);
    let update = 600_000;

    /** Posts an update as Telegram does, again while the edge answers 5xx or cannot be reached. */
    const post = async (body: unknown): Promise<void> => {
      for (;;) {
        try {
          const response = await fetch(`${sys.apiUrl}/v2/callback/telegram/${bot.appId}`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'x-telegram-bot-api-secret-token': bot.secret,
            },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(10_000),
          });
          const text = await response.text();
          if (response.status === 200) return;
          if (response.status < 500) throw new Error(`refused: ${response.status} ${text}`);
        } catch (error) {
          if ((error as Error).message.startsWith('refused')) throw error;
        }
        await sleep(200);
      }
    };
    const delivered = (chat: number, text: string): boolean =>
      sys.stub.calls.some(
        (c) => c.chat === String(chat) && c.text === text && (c.delivered || c.maybeDelivered),
      );
    const play = async (chat: number, script: [string, string][]): Promise<void> => {
      for (const [text, reply] of script) {
        update += 1;
        const body = {
          update_id: update,
          message: {
            message_id: update,
            date: Math.floor(Date.now() / 1000),
            chat: { id: chat, type: 'private' },
            from: { id: chat, first_name: 'Ana' },
            text,
          },
        };
        // Telegram delivers again when it is not sure: the same update twice.
        await post(body);
        await post(body);
        await waitFor(() => delivered(chat, reply) || undefined, {
          timeoutMs: 120_000,
          what: `"${reply}" after "${text}" to chat ${chat}`,
        });
      }
    };

    let chat = 70_000;
    const plays: Promise<void>[] = [];
    for (let round = 0; round < TIMES; round += 1) {
      for (const [script, users] of USERS) {
        for (let i = 0; i < users; i += 1) plays.push(play((chat += 1), SCRIPTS[script]!));
      }
    }
    const sends = () => sys.stub.calls.filter((c) => c.method === 'sendMessage').length;
    await waitFor(() => sends() >= 150 || undefined, {
      timeoutMs: 120_000,
      what: 'a third of the replies sent',
    });
    await sys.kill('channel');
    await sleep(1500);
    await sys.restart('channel');
    await Promise.all(plays);

    const today = dayOf();
    const figures = async () =>
      (await sys.admin('GET', `/v2/bots/${bot.appId}/analytics?from=${today}&to=${today}`)).json;
    const expected = totalsTimes(TIMES);
    await waitFor(
      async () =>
        (await figures()).totals.messages_in === expected.messages_in ? true : undefined,
      { timeoutMs: 30_000, what: 'every turn counted' },
    );
    const { totals, states } = await figures();
    expect(totals).to.deep.equal(expected);
    expect(states).to.deep.equal(statesTimes(TIMES));
    // Each answer's first message timed once: also one the killed channel had to send again.
    await waitFor(
      async () =>
        (await figures()).service.bot_response_ms.count >= expected.messages_in! || undefined,
      { timeoutMs: 30_000, what: 'every answer timed' },
    );
    expect((await figures()).service.bot_response_ms.count).to.equal(expected.messages_in);
  });
});
