/**
 * Answers that know their limits, end to end with the embedded model: a collection indexed by the
 * real indexer with real vectors; a Telegram user's paraphrased question is answered from the
 * right passage, an unrelated one gets the explicit "no answer" (the flow branches on
 * `answer_found`) and is listed as a knowledge gap; the search route's modes.
 */
import { expect } from 'chai';
import { createTelegramBot } from './support/api.ts';
import { pdf, SHOP_PAGES } from './support/knowledge-fixtures.ts';
import {
  index,
  startKnowledge,
  startTelegramChat,
  upload,
  waitForJob,
  type KnowledgeEnv,
  type TelegramChat,
} from './support/knowledge.ts';

/** Asks, answers from the collection, and branches on whether anything relevant was found. */
const FLOW = {
  version: 1,
  start: 'ask',
  states: {
    ask: { wait: { store: 'question' }, next: 'answer' },
    answer: {
      actions: [{ answer_from: { collection: 'help', query: '{{question}}', k: 3 } }],
      transitions: [{ when: { '!': { var: 'answer_found' } }, to: 'unknown' }, { to: 'found' }],
    },
    found: { actions: [{ send: { text: 'A: {{answer}}' } }], next: 'ask' },
    unknown: { actions: [{ send: { text: 'NO ANSWER: let me find a person.' } }], next: 'ask' },
  },
};

describe('knowledge: answers by meaning end to end', function () {
  this.timeout(120_000);
  let env: KnowledgeEnv;
  let appId = '';
  let secret = '';
  let chat: TelegramChat;

  before(async () => {
    env = await startKnowledge({ EMBEDDINGS_PROVIDER: 'local', KNOWLEDGE_MIN_SIMILARITY: '0.3' });
    await env.startComponents();
    const manual = await pdf(SHOP_PAGES);
    expect((await upload(env.api, 'help', { 'help.pdf': manual })).status).to.equal(201);
    const job = await waitForJob(env.api, await index(env.api, 'help'));
    expect(job.status).to.equal('succeeded');
    expect(job.progress.chunks_embedded).to.equal(SHOP_PAGES.length);
    ({ appId, secret } = await createTelegramBot(env.api, { name: 'help', flow: FLOW }));
    expect(
      (await env.api.call('PATCH', '/v2/collections/help', { body: { owner_app_id: appId } }))
        .status,
    ).to.equal(200);
    chat = await startTelegramChat(env);
  });

  after(async () => {
    await chat?.stop();
    await env?.stop();
  });

  const ask = (chatId: number, text: string): Promise<string> =>
    chat.ask({ appId, secret }, chatId, text);

  it('when the collection is read, then it names its vectors model and the effective settings', async () => {
    const collection = (await env.api.call('GET', '/v2/collections/help')).json;
    expect(collection.indexed.vectors_model).to.equal('local:use-lite-en');
    expect(collection).to.include({
      embedding_model: null,
      embedding_model_effective: 'local',
      min_similarity_effective: 0.3,
    });
  });

  it('when a user asks in other words than the manual, then the right passage answers', async () => {
    const answer = await ask(41, 'my tyre keeps going flat');
    expect(answer).to.match(/^A: 1\. Puncture repair.*\(help\.pdf, page 1\)/s);
  });

  it('when a question has no good passage, then the flow gets no answer and the question is listed as a gap', async () => {
    expect(await ask(42, 'who won the football world cup in 1954?')).to.equal(
      'NO ANSWER: let me find a person.',
    );
    const gaps = (await env.api.call('GET', '/v2/collections/help/unanswered')).json;
    expect(gaps.items).to.have.length(1);
    expect(gaps.items[0]).to.include({
      question: 'who won the football world cup in 1954?',
      mode: 'hybrid',
      app_id: appId,
    });
    expect(gaps.items[0].best_score).to.be.a('number').and.below(0.3);
    expect(gaps.items[0].conversation_id).to.be.a('string');
  });

  it('when the search route is asked by mode, then it names the mode that ran and refuses an unknown one', async () => {
    const q = encodeURIComponent('do you do finance?');
    const words = (await env.api.call('GET', `/v2/collections/help/search?q=${q}&mode=words`)).json;
    expect(words.mode).to.equal('words');
    expect(words.hits).to.have.length(0);
    const hybrid = (await env.api.call('GET', `/v2/collections/help/search?q=${q}`)).json;
    expect(hybrid.mode).to.equal('hybrid');
    expect(hybrid.hits[0]).to.deep.include({ source: { file: 'help.pdf', page: 2 }, rank: 1 });
    expect(hybrid.hits[0].vector_score).to.be.a('number');
    const unknown = await env.api.call('GET', `/v2/collections/help/search?q=${q}&mode=fuzzy`);
    expect(unknown.status).to.equal(400);
    expect(unknown.json.error.code).to.equal('BW_ERR_SCHEMA');
  });

  it('when a collection without vectors is searched by meaning, then BW_ERR_SEARCH_MODE', async () => {
    const patched = await env.api.call('PATCH', '/v2/collections/plain', {
      body: { embedding_model: 'none' },
    });
    expect(patched.status).to.equal(200);
    expect(patched.json).to.include({ embedding_model: 'none' });
    expect(patched.json.reindex_job_id).to.equal(undefined);
    expect(
      (await upload(env.api, 'plain', { 'plain.pdf': await pdf(['Brakes and gears.']) })).status,
    ).to.equal(201);
    expect((await waitForJob(env.api, await index(env.api, 'plain'))).status).to.equal('succeeded');
    const refused = await env.api.call(
      'GET',
      '/v2/collections/plain/search?q=brakes&mode=semantic',
    );
    expect(refused.status).to.equal(400);
    expect(refused.json.error.code).to.equal('BW_ERR_SEARCH_MODE');
    const words = (await env.api.call('GET', '/v2/collections/plain/search?q=brakes')).json;
    expect(words).to.include({ mode: 'words', vectors_model: null });
    expect(words.hits).to.have.length(1);
  });

  it('when the embedding model is set, then only a change of the model the collection is embedded with re-indexes it', async () => {
    const same = await env.api.call('PATCH', '/v2/collections/help', {
      body: { embedding_model: 'local' },
    });
    expect(same.status).to.equal(200);
    expect(same.json.reindex_job_id, 'local is what the default already meant').to.equal(undefined);
    const other = await env.api.call('PATCH', '/v2/collections/help', {
      body: { embedding_model: 'none' },
    });
    expect(other.json.reindex_job_id).to.be.a('string');
    expect((await waitForJob(env.api, other.json.reindex_job_id)).status).to.equal('succeeded');
    const collection = (await env.api.call('GET', '/v2/collections/help')).json;
    expect(collection.indexed.vectors_model).to.equal(null);
  });
});
