/**
 * The pipeline with two processes of each of channel, language and flow, against a stand-in
 * platform on loopback: one conversation's replies keep their order, and a component killed
 * mid-conversation and restarted loses and duplicates nothing.
 */
import { expect } from 'chai';
import { createStubTelegramBot, startTestApi, type TestApi } from './support/api.ts';
import {
  startComponent,
  stopComponent,
  type ComponentName,
  type ComponentProcess,
} from './support/components.ts';
import { ECHO_FLOW } from './support/flows.ts';
import { startPlatformStub, type PlatformStub } from './support/platform-stub.ts';
import { forEachRedisMode } from './support/redis-modes.ts';
import { waitFor } from './support/services.ts';

forEachRedisMode('pipeline with two processes of each component', function (mode) {
  this.timeout(120_000);
  let stub: PlatformStub;
  let t: TestApi;
  let appId = '';
  let secret = '';
  const running: ComponentProcess[] = [];
  const COMPONENTS: ComponentName[] = ['channel', 'language', 'flow'];

  const settings = () => ({
    ...t.env,
    CONSUMER_LEASE_MS: '1500',
    CONSUMER_BLOCK_MS: '200',
    SHUTDOWN_TIMEOUT_MS: '5000',
  });
  const launch = async (component: ComponentName, index: number) => {
    // As the fault tests allow: a loaded 2-core machine may take long to start a process.
    const c = await startComponent(component, `${component}-${index}-${Date.now()}`, settings(), {
      timeoutMs: 90_000,
    });
    running.push(c);
    return c;
  };
  const echoes = (chat: string) =>
    stub.calls
      .filter((c) => c.method === 'sendMessage' && String(c.body.chat_id) === chat)
      .map((c) => String(c.body.text));
  let updateId = 1000;
  const say = (chat: number, text: string) =>
    t.call('POST', `/v2/callback/telegram/${appId}`, {
      auth: false,
      headers: { 'x-telegram-bot-api-secret-token': secret },
      body: {
        update_id: (updateId += 1),
        message: {
          message_id: updateId,
          date: 1,
          chat: { id: chat, type: 'private' },
          from: { id: chat },
          text,
        },
      },
    });

  before(async () => {
    stub = await startPlatformStub();
    t = await startTestApi({
      TELEGRAM_API_URL: stub.url,
      TOPIC_PARTITIONS: '4',
      REDIS_URL: mode.url(),
    });
    ({ appId, secret } = await createStubTelegramBot(t, stub, 'echo', ECHO_FLOW));
    for (const component of COMPONENTS) {
      await launch(component, 1);
      await launch(component, 2);
    }
  });

  after(async () => {
    await Promise.all(running.map((c) => stopComponent(c, 'SIGKILL')));
    await t?.stop();
    await stub?.close();
  });

  it('when twenty messages arrive quickly in one conversation, then the twenty replies go out in the same order', async () => {
    const texts = Array.from({ length: 20 }, (_, i) => `m${i + 1}`);
    for (const text of texts) expect((await say(501, text)).status).to.equal(200);
    await waitFor(() => echoes('501').length >= 20, { timeoutMs: 60_000, what: '20 replies' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(echoes('501')).to.deep.equal(texts.map((text) => `echo: ${text}`));
  });

  for (const victim of COMPONENTS) {
    it(`when a ${victim} process is killed mid-conversation and restarted, then no reply is lost or sent twice`, async () => {
      const chat = 600 + COMPONENTS.indexOf(victim);
      const texts = Array.from({ length: 12 }, (_, i) => `${victim}${i + 1}`);
      for (const text of texts.slice(0, 6)) await say(chat, text);
      await waitFor(() => echoes(String(chat)).length >= 2, {
        timeoutMs: 30_000,
        what: 'the first replies',
      });
      const doomed = running.find(
        (c) =>
          c.component === victim &&
          c.proc.child.exitCode === null &&
          c.proc.child.signalCode === null,
      )!;
      const killingAt = Date.now();
      await stopComponent(doomed, 'SIGKILL');
      const killedAt = Date.now();
      for (const text of texts.slice(6)) await say(chat, text);
      await launch(victim, 3);
      // Replies keep their order, so the last one's arrival means all have come.
      await waitFor(() => echoes(String(chat)).includes(`echo: ${texts[11]}`), {
        timeoutMs: 60_000,
        what: '12 replies',
      });
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const sends = stub.calls.filter(
        (c) => c.method === 'sendMessage' && String(c.body.chat_id) === String(chat),
      );
      // The one repeat the design admits (docs/pipeline.md, exactly-once effects; the same rule
      // as test/faults/process-kill.test.ts): channel dies after the platform accepted a call and
      // before its row says sent, so the call is made again, next, once the partition is read
      // again. Its first copy reached the platform just before the kill (2 s for a loaded machine).
      const repeat = sends.findIndex(
        (c, i) =>
          victim === 'channel' &&
          i > 0 &&
          c.body.text === sends[i - 1]!.body.text &&
          sends[i - 1]!.at >= killingAt - 2000 &&
          sends[i - 1]!.at <= killedAt &&
          c.at >= killedAt,
      );
      const replies = sends.filter((_, i) => i !== repeat).map((c) => String(c.body.text));
      expect(replies).to.deep.equal(texts.map((text) => `echo: ${text}`));
    });
  }
});
