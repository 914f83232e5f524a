/**
 * The answer-from-collection step end to end: a Telegram user's question goes channel → language →
 * flow → retriver (a real collection indexed by the real indexer) → flow → channel, and comes back
 * as the best passages cited by source; with an LLM endpoint configured (a local stand-in), as
 * the model's answer that says it was written by a model.
 */
import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Producer } from '../src/shared/bus/producer.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import { createTelegramBot, topicMessages } from './support/api.ts';
import { pdf } from './support/knowledge-fixtures.ts';
import {
  index,
  startKnowledge,
  startTelegramChat,
  upload,
  waitForJob,
  type KnowledgeEnv,
  type TelegramChat,
} from './support/knowledge.ts';
import { faqFlow } from './support/flows.ts';
import { waitFor } from './support/services.ts';

const FAQ_FLOW = faqFlow('faq', 3);

/** A stand-in OpenAI-compatible chat completions endpoint on loopback. */
async function startLlm(): Promise<{
  url: string;
  requests: any[];
  close(): Promise<void>;
  fail: { on: boolean };
}> {
  const requests: any[] = [];
  const fail = { on: false };
  const read = async (req: IncomingMessage): Promise<string> => {
    let text = '';
    for await (const chunk of req) text += String(chunk);
    return text;
  };
  const server: Server = createServer((req, res) => {
    void read(req).then((body) => {
      requests.push({
        path: req.url,
        auth: req.headers.authorization,
        body: JSON.parse(body) as unknown,
      });
      if (fail.on) {
        res.writeHead(500).end('{"error":"overloaded"}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content: 'The workshop opens at nine [1].' } }],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    fail,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('knowledge: the answer step end to end', function () {
  this.timeout(60_000);
  let env: KnowledgeEnv;
  let llm: Awaited<ReturnType<typeof startLlm>>;
  let appId = '';
  let secret = '';
  let chat: TelegramChat;

  before(async () => {
    env = await startKnowledge();
    await env.startComponents();
    llm = await startLlm();
    const manual = await pdf([
      'Welcome to the shop. We sell bicycles and parts.',
      'Returns: bring the receipt within thirty days for a full refund.',
      'Opening hours: the workshop opens at nine and closes at six.',
    ]);
    expect((await upload(env.api, 'faq', { 'faq.pdf': manual })).status).to.equal(201);
    expect((await waitForJob(env.api, await index(env.api, 'faq'))).status).to.equal('succeeded');
    ({ appId, secret } = await createTelegramBot(env.api, { name: 'faq', flow: FAQ_FLOW }));
    // A new collection is readable by no bot until it is given an owner or shared.
    const owned = await env.api.call('PATCH', '/v2/collections/faq', {
      body: { owner_app_id: appId },
    });
    expect(owned.status).to.equal(200);
    chat = await startTelegramChat(env);
  });

  after(async () => {
    await chat?.stop();
    await llm?.close();
    await env?.stop();
  });

  const ask = (
    chatId: number,
    text: string,
    bot: { appId: string; secret: string } = { appId, secret },
  ): Promise<string> => chat.ask(bot, chatId, text);

  it('when a user asks and no LLM is configured, then the answer is the best passage cited by its source', async () => {
    const answer = await ask(21, 'when does the workshop open?');
    expect(answer).to.match(/^A: 1\. .*workshop opens at nine.*\n\(faq\.pdf, page 3\)/s);
    expect(answer).to.not.contain('<mark>');
    const callback = (await topicMessages(env.api.redis, env.api.prefix, 'flow')).find(
      (m: { source: string }) => m.source === 'retriver',
    );
    expect(callback).to.deep.include({ intent: 'callback', ok: true, answered_by: 'passages' });
    expect(callback.results[0]).to.deep.include({ source: { file: 'faq.pdf', page: 3 } });
    expect(callback.results[0].snippet).to.contain('<mark>');
  });

  it('when nothing matches, then the user is told nothing was found in the collection', async () => {
    expect(await ask(22, 'zeppelin')).to.equal('A: I found nothing about that in faq.');
  });

  it('when an LLM is configured, then it writes the answer from the passages and the answer says so; when it fails, the passages answer', async () => {
    await env.stopComponents();
    await env.startComponents({
      env: { LLM_API_URL: llm.url, LLM_API_KEY: 'llm-key', LLM_MODEL: 'test-model' },
    });
    const answer = await ask(23, 'when does the workshop open?');
    expect(answer).to.equal(
      'A: The workshop opens at nine [1].\n\n(Written by an AI model from: faq.pdf, page 3)',
    );
    const request = llm.requests[0];
    expect(request.path).to.equal('/v1/chat/completions');
    expect(request.auth).to.equal('Bearer llm-key');
    expect(request.body.model).to.equal('test-model');
    expect(request.body.messages[1].content)
      .to.contain('workshop opens at nine')
      .and.contain('(faq.pdf, page 3)');

    llm.fail.on = true;
    const fallback = await ask(24, 'when does the workshop open?');
    expect(fallback).to.match(/^A: 1\. .*workshop opens at nine.*\(faq\.pdf, page 3\)/s);
  });

  it("when another bot's flow asks a collection owned by the first bot, then it is refused with BW_ERR_COLLECTION_FORBIDDEN and its flow replies with the reason; once shared, it is answered", async () => {
    const other = await createTelegramBot(env.api, {
      name: 'other',
      flow: faqFlow('faq', 3, 'A: {{answer.error}}{{answer}}'),
    });
    const collection = (await env.api.call('GET', '/v2/collections/faq')).json;
    expect(collection).to.include({ owner_app_id: appId, shared: false });
    const refused = await ask(31, 'when does the workshop open?', other);
    expect(refused).to.match(
      /^A: BW_ERR_COLLECTION_FORBIDDEN: this bot may not read the collection "faq"/,
    );
    expect(refused).to.not.contain('workshop opens at nine');
    const callback = (await topicMessages(env.api.redis, env.api.prefix, 'flow')).find(
      (m: { source: string; conversation?: { app_id: string } }) =>
        m.source === 'retriver' && m.conversation?.app_id === other.appId,
    );
    expect(callback).to.deep.include({ intent: 'callback', ok: false });
    expect(callback.error).to.match(/^BW_ERR_COLLECTION_FORBIDDEN: /);
    // The owner still reads it.
    expect(await ask(32, 'when does the workshop open?')).to.contain('workshop opens at nine');

    const shared = await env.api.call('PATCH', '/v2/collections/faq', { body: { shared: true } });
    expect(shared.json).to.include({ collection: 'faq', owner_app_id: appId, shared: true });
    expect(await ask(33, 'when does the workshop open?', other)).to.contain(
      'workshop opens at nine',
    );
    const unknown = await env.api.call('PATCH', '/v2/collections/faq', {
      body: { owner_app_id: 'no-such-bot' },
    });
    expect(unknown.status).to.equal(404);
    expect(unknown.json.error.code).to.equal('BW_ERR_NOT_FOUND');
    const empty = await env.api.call('PATCH', '/v2/collections/faq', { body: {} });
    expect(empty.status).to.equal(400);
  });

  it('when a question names a collection that does not exist, then the flow gets a failed answer with the reason', async () => {
    const producer = new Producer({
      redis: env.api.redis,
      schemas: new SchemaRegistry(),
      prefix: env.api.prefix,
      maxLen: 1000,
      partitions: env.api.config.stream.partitions,
    });
    const conversation = {
      app_id: appId,
      conversation_id: '00000000-0000-4000-8000-000000000001',
      channel_type: 'telegram',
      chat_id: '99',
      channel_id: '00000000-0000-4000-8000-000000000002',
      user_pid: 'telegram:99',
      bot_language: 'en',
    };
    await producer.publish('retriver', {
      source: 'test',
      collection_name: 'nope',
      query: 'anything',
      reply_to: { topic: 'flow', request_id: 'req-nope', conversation, ordering_key: 'k-nope' },
    });
    const callback = await waitFor(async () =>
      (await topicMessages(env.api.redis, env.api.prefix, 'flow')).find(
        (m: { request_id?: string }) => m.request_id === 'req-nope',
      ),
    );
    expect(callback).to.deep.include({
      intent: 'callback',
      ok: false,
      turn_id: 'req-nope:answer',
      error: 'no collection named "nope"',
    });
  });
});
