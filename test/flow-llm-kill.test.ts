/**
 * Fault: the `flow` process is killed (SIGKILL) while an `llm` step's call is out at the
 * provider. `flow` runs as a process of its own (as `scripts/run.sh flow` starts it), the edge,
 * channel and language in this one; the provider and Telegram are stand-ins on 127.0.0.1. The
 * turn is redelivered to the restarted process, which makes the call again (the first answer
 * died with its process: docs/flows.md, "The llm step"); the conversation gets one result and
 * the user one reply.
 */
import { expect } from 'chai';
// First: it loads nock, which must patch node:http before the components' modules take its
// functions, or the suites after this one in the same mocha process could not stand in for
// Telegram with nock.
import { createStubTelegramBot, startTestApi, type TestApi } from './support/api.ts';
import { startChannel } from '../src/channel/worker.ts';
import { startLanguage } from '../src/language/worker.ts';
import { createLogger } from '../src/shared/logger.ts';
import type { Service } from '../src/shared/process.ts';
import { startComponent, stopComponent, type ComponentProcess } from './support/components.ts';
import { startLlmStub, type LlmStub } from './support/llm-stub.ts';
import { startPlatformStub, type PlatformStub } from './support/platform-stub.ts';
import { waitFor } from './support/services.ts';

const FLOW = {
  version: 1,
  start: 'listen',
  states: {
    listen: { wait: { store: 'said', expect: 'text' }, next: 'think' },
    think: {
      actions: [
        { llm: { prompt: 'Answer briefly: {{said}}', output: 'text', store: 'answer' } },
        { send: { text: 'Answer: {{answer}}' } },
      ],
      next: 'listen',
    },
  },
};

describe('flow killed while an llm call is out', function () {
  this.timeout(120_000);
  let platform: PlatformStub;
  let llm: LlmStub;
  let t: TestApi;
  const services: Service[] = [];
  const flows: ComponentProcess[] = [];
  let appId = '';
  let secret = '';

  const launchFlow = async (n: number) => {
    const settings = {
      ...t.env,
      LLM_API_URL: llm.url,
      CONSUMER_LEASE_MS: '1500',
      CONSUMER_BLOCK_MS: '200',
      CONSUMER_RETRY_BASE_MS: '100',
    };
    flows.push(
      await startComponent('flow', `flow-llm-${n}-${Date.now()}`, settings, { timeoutMs: 60_000 }),
    );
  };

  before(async () => {
    platform = await startPlatformStub();
    llm = await startLlmStub();
    t = await startTestApi({ TELEGRAM_API_URL: platform.url, TOPIC_PARTITIONS: '4' });
    ({ appId, secret } = await createStubTelegramBot(t, platform, 'thinker', FLOW));
    const logger = (component: string) => createLogger({ component, level: 'silent' });
    services.push(
      await startChannel(t.config, logger('channel')),
      await startLanguage(t.config, logger('language')),
    );
    await launchFlow(1);
  });

  after(async () => {
    await Promise.all(flows.map((c) => stopComponent(c, 'SIGKILL')));
    for (const service of services) await service.close();
    await t?.stop();
    await llm?.close();
    await platform?.close();
  });

  it('when flow dies while the provider holds the call, then after the restart the conversation has one result and the user one reply', async () => {
    llm.reply('hang');
    llm.otherwise = { content: 'Bring it in on Monday.', tokens: 30 };
    const said = await t.call('POST', `/v2/callback/telegram/${appId}`, {
      auth: false,
      headers: { 'x-telegram-bot-api-secret-token': secret },
      body: {
        update_id: 501,
        message: {
          message_id: 501,
          date: 1,
          chat: { id: 77, type: 'private' },
          from: { id: 77 },
          text: 'when can I bring my bike?',
        },
      },
    });
    expect(said.status).to.equal(200);
    await waitFor(() => llm.hanging() === 1, { timeoutMs: 30_000, what: 'the llm call to be out' });
    await stopComponent(flows[0]!, 'SIGKILL');
    await launchFlow(2);

    const replies = () =>
      platform.calls
        .filter((c) => c.method === 'sendMessage' && c.chat === '77')
        .map((c) => c.text);
    await waitFor(() => replies().length >= 1, { timeoutMs: 60_000, what: 'the reply' });
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(replies()).to.deep.equal(['Answer: Bring it in on Monday.']);
    const row = await t.schema.db('conversation_state').where({ app_id: appId }).first();
    expect(row.state.vars.answer).to.equal('Bring it in on Monday.');
    expect(row.state.awaiting).to.deep.include({ kind: 'input', state: 'listen' });
    // The call that was out when its process died is made again, once: two requests in all.
    expect(llm.requests.map((r) => r.body.messages[1]!.content)).to.deep.equal([
      'Answer briefly: <user_data name="said">\nwhen can I bring my bike?\n</user_data>',
      'Answer briefly: <user_data name="said">\nwhen can I bring my bike?\n</user_data>',
    ]);
  });
});
