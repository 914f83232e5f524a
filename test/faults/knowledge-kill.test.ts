/**
 * Fault: a knowledge component process dies (SIGKILL) under the steady echo traffic while
 * question-answer conversations run on a second bot whose flow answers from an indexed collection.
 *
 * The question conversations are closed-loop: the flow drops user input that arrives while an
 * answer is awaited (docs/flows.md), so each chat sends its next question only once the reply to
 * the previous one arrived. Every answer must be a real one: the passages cited by their source
 * file. A restarted component needs about 1.2 s of CPU to start, which on a machine shared ten
 * ways takes over ten seconds; the question awaited meanwhile would then meet the effect timeout
 * (15 s by default) and be answered without passages, which is the timeout working, not the fault
 * this suite is about. So the effect timeout here is EFFECT_TIMEOUT_MS, beyond any restart, and
 * each answer is awaited past it: an answer lost in the fault fails the suite either way.
 */
import { expect } from 'chai';
import { TELEGRAM_TOKEN } from '../support/api.ts';
import { startFaultSystem, type FaultSystem } from '../support/fault-system.ts';
import { forEachRedisMode } from '../support/redis-modes.ts';
import {
  emptyRow,
  expectDelivered,
  postMessage,
  recordRow,
  startTraffic,
  type FaultRow,
} from '../support/fault-traffic.ts';
import { faqFlow } from '../support/flows.ts';
import { pdf } from '../support/knowledge-fixtures.ts';
import { waitFor } from '../support/services.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const EFFECT_TIMEOUT_MS = 60_000;

async function uploadFiles(
  sys: FaultSystem,
  collection: string,
  files: Record<string, Buffer>,
): Promise<void> {
  const form = new FormData();
  for (const [name, bytes] of Object.entries(files)) form.append('file', new Blob([bytes]), name);
  const response = await fetch(`${sys.apiUrl}/v2/collections/${collection}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${sys.env.ADMIN_API_KEY}` },
    body: form,
  });
  if (response.status !== 201) throw new Error(`upload answered ${response.status}`);
}

async function startIndexing(sys: FaultSystem, collection: string): Promise<string> {
  const started = await sys.admin('POST', `/v2/collections/${collection}/index`, {});
  if (started.status !== 202) throw new Error(`index answered ${JSON.stringify(started.json)}`);
  return started.json.job_id as string;
}

async function job(sys: FaultSystem, jobId: string): Promise<any> {
  return (await sys.admin('GET', `/v2/index-jobs/${jobId}`)).json;
}

async function finishedJob(sys: FaultSystem, jobId: string, timeoutMs: number): Promise<any> {
  return waitFor(
    async () => {
      const view = await job(sys, jobId);
      return ['succeeded', 'partial', 'failed', 'superseded'].includes(view.status)
        ? view
        : undefined;
    },
    { timeoutMs, intervalMs: 200, what: `indexing job ${jobId} to finish` },
  );
}

interface Questions {
  /** Stops asking once each chat has its answer in flight, waits 1 s for duplicates; idempotent. */
  stop(): Promise<void>;
  /** Per chat: questions asked, and the answers the platform accepted, in order. */
  asked: Map<string, string[]>;
  answers(): Map<string, string[]>;
  row(fault: string): FaultRow;
}

/** Every question got exactly one answer, in order, citing its source. */
function expectAllAnswered(questions: Questions, qrow: FaultRow): void {
  expect(qrow, JSON.stringify(Object.fromEntries(questions.answers()))).to.deep.include({
    received: qrow.sent,
    lost: 0,
    duplicated: 0,
    reordered: 0,
  });
  expect(qrow.extra!['answers without a cited source']).to.equal(0);
}

/**
 * Closed-loop question conversations on the question bot: each chat asks, waits for the answer
 * (at most `answerTimeoutMs`), then asks the next.
 */
function startQuestions(
  sys: FaultSystem,
  bot: { appId: string; secret: string },
  chats: string[],
  label: string,
): Questions {
  const asBot = { ...sys, telegram: bot };
  const asked = new Map<string, string[]>(chats.map((c) => [c, []]));
  const started = Date.now();
  let running = true;
  const answers = (): Map<string, string[]> => {
    const byChat = new Map<string, string[]>(chats.map((c) => [c, []]));
    for (const call of sys.stub.calls) {
      if (!call.delivered || call.chat === undefined || !call.text?.startsWith('A(')) continue;
      byChat.get(call.chat)?.push(call.text);
    }
    return byChat;
  };
  const failures: unknown[] = [];
  const retries = new Map<string, number>();
  let longestWait = 0;
  const loops = chats.map(async (chat) => {
    for (let n = 1; running; n += 1) {
      const question = `when does the workshop open, ${label} ${chat} question ${n}?`;
      try {
        await postMessage(asBot, { platform: 'telegram', chat }, question, {
          onRetry: (answer) => retries.set(answer, (retries.get(answer) ?? 0) + 1),
        });
        asked.get(chat)!.push(question);
        const askedAt = Date.now();
        await waitFor(
          () =>
            answers()
              .get(chat)!
              .some((a) => a.startsWith(`A(${question})`)),
          {
            timeoutMs: EFFECT_TIMEOUT_MS + 20_000,
            intervalMs: 100,
            what: `the answer to "${question}"`,
          },
        );
        longestWait = Math.max(longestWait, Date.now() - askedAt);
      } catch (error) {
        failures.push(error);
        return;
      }
      await sleep(300);
    }
  });
  let lastAt = started;
  let stopping: Promise<void> | undefined;
  return {
    asked,
    answers,
    stop() {
      stopping ??= (async () => {
        running = false;
        await Promise.all(loops);
        lastAt = Date.now();
        await sleep(1000); // a duplicate would come right behind
      })();
      return stopping.then(() => {
        if (failures.length > 0) throw failures[0];
      });
    },
    row(fault) {
      const got = answers();
      const row: FaultRow = {
        ...emptyRow(fault, retries, lastAt - started),
        extra: {
          'answers without a cited source': 0,
          'longest wait for an answer ms': longestWait,
        },
      };
      for (const chat of chats) {
        const questions = asked.get(chat)!;
        const replies = got.get(chat)!;
        row.sent += questions.length;
        row.received += replies.length;
        const answeredAt = replies.map((a) => questions.findIndex((q) => a.startsWith(`A(${q})`)));
        questions.forEach((_, i) => {
          const copies = answeredAt.filter((at) => at === i).length;
          if (copies === 0) row.lost += 1;
          row.duplicated += Math.max(0, copies - 1);
        });
        answeredAt.forEach((at, i) => {
          if (i > 0 && at < answeredAt[i - 1]!) row.reordered += 1;
        });
        row.extra!['answers without a cited source']! += replies.filter(
          (a) => !/\(faq\.pdf, page 3\)/.test(a),
        ).length;
      }
      return row;
    },
  };
}

forEachRedisMode('faults: a knowledge component killed and restarted', function (mode) {
  this.timeout(240_000);
  const where = mode.name === 'cluster' ? ' (Redis Cluster)' : '';
  let system: FaultSystem | undefined;
  let bot = { appId: '', secret: '' };

  before(async function () {
    this.timeout(180_000);
    system = await startFaultSystem({
      redisUrl: mode.url(),
      settings: { FLOW_EFFECT_TIMEOUT_MS: String(EFFECT_TIMEOUT_MS) },
    });
    const sys = system;
    const faq = await pdf([
      'Welcome to the shop. We sell bicycles and parts.',
      'Returns: bring the receipt within thirty days for a full refund.',
      'Opening hours: the workshop opens at nine and closes at six.',
    ]);
    await uploadFiles(sys, 'faq', { 'faq.pdf': faq });
    const first = await finishedJob(sys, await startIndexing(sys, 'faq'), 60_000);
    expect(first.status, JSON.stringify(first)).to.equal('succeeded');
    const created = await sys.admin('POST', '/v2/bots', {
      name: 'questions',
      // each answer says which question it answers
      flow: faqFlow('faq', 2, 'A({{question}}): {{answer}}'),
      channel: { type: 'telegram', details: { bot_token: TELEGRAM_TOKEN } },
    });
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    const appId: string = created.json.app_id;
    // A new collection is readable by no bot until it is given an owner or shared.
    const owned = await sys.admin('PATCH', '/v2/collections/faq', { owner_app_id: appId });
    expect(owned.status, JSON.stringify(owned.json)).to.equal(200);
    const hooks = sys.stub.calls.filter((c) => c.method === 'setWebhook').length;
    const hook = await sys.admin(
      'POST',
      `/v2/bots/${appId}/channels/${created.json.channels[0].id}/webhook`,
    );
    expect(hook.status).to.equal(200);
    const setWebhook = sys.stub.calls.filter((c) => c.method === 'setWebhook')[hooks];
    bot = { appId, secret: String(setWebhook?.body.secret_token) };
  });

  after(async () => {
    await system?.close();
  });

  it('when retriver is killed (SIGKILL) while questions are asked and restarted, then every question is answered once from the collection, in order, and the echo traffic loses, repeats and reorders nothing', async () => {
    const sys = system!;
    const traffic = startTraffic(sys, { label: 'kill-retriver', index: 0 });
    const questions = startQuestions(sys, bot, ['80001', '80002', '80003'], 'kill-retriver');
    try {
      await waitFor(() => [...questions.answers().values()].flat().length >= 6, {
        timeoutMs: 40_000,
        what: 'answers flowing before the fault',
      });
      await sys.kill('retriver');
      await sleep(1500);
      await sys.restart('retriver');
      const answered = [...questions.answers().values()].flat().length;
      await waitFor(() => [...questions.answers().values()].flat().length >= answered + 6, {
        timeoutMs: 40_000,
        what: 'answers flowing after the restart',
      });
      await traffic.stop();
      await questions.stop();
    } finally {
      await traffic.stop(true).catch(() => undefined);
      await questions.stop().catch(() => undefined);
    }
    await traffic.settle();
    const qrow = questions.row(`SIGKILL retriver, questions${where}`);
    recordRow(qrow);
    const row = traffic.measure(`SIGKILL retriver, echo traffic${where}`);
    recordRow(row);
    expect(qrow.sent).to.be.greaterThan(8);
    expectAllAnswered(questions, qrow);
    expect(row.sent).to.be.greaterThan(10);
    await expectDelivered(sys, traffic, row);
  });

  it('when indexer is killed (SIGKILL) mid-job and restarted, then the job is taken over and succeeds with no duplicated chunk, questions asked meanwhile are answered, and the echo traffic loses, repeats and reorders nothing', async () => {
    const sys = system!;
    const manuals = await Promise.all(
      Array.from({ length: 10 }, (_, f) =>
        pdf(
          Array.from(
            { length: 30 },
            (_, p) => `Spoke manual ${f}, page ${p + 1}. ${'Spokes, rims and hubs. '.repeat(20)}`,
          ),
        ),
      ),
    );
    // Re-indexing the collection the questions are answered from: the old generation answers
    // until the new one is complete.
    await uploadFiles(
      sys,
      'faq',
      Object.fromEntries(manuals.map((d, i) => [`manual-${String(i).padStart(2, '0')}.pdf`, d])),
    );
    const traffic = startTraffic(sys, { label: 'kill-indexer', index: 1 });
    const questions = startQuestions(sys, bot, ['80011', '80012', '80013'], 'kill-indexer');
    let view: any;
    let doneAtKill = 0;
    try {
      const jobId = await startIndexing(sys, 'faq');
      await waitFor(async () => ((await job(sys, jobId)).progress.files_done as number) >= 1, {
        timeoutMs: 60_000,
        intervalMs: 100,
        what: 'one file done',
      });
      await sys.kill('indexer');
      doneAtKill = (await job(sys, jobId)).progress.files_done as number;
      await sleep(1500);
      await sys.restart('indexer');
      view = await finishedJob(sys, jobId, 120_000);
      await traffic.stop();
      await questions.stop();
    } finally {
      await traffic.stop(true).catch(() => undefined);
      await questions.stop().catch(() => undefined);
    }
    await traffic.settle();
    const perFile = view.files.reduce((sum: number, f: { chunks: number }) => sum + f.chunks, 0);
    const stored = await sys.schema
      .db('chunks as c')
      .join('collections as k', 'k.id', 'c.collection_id')
      .where('k.name', 'faq')
      .select('c.generation', 'c.file', 'c.text');
    const qrow = questions.row(`SIGKILL indexer mid-job, questions${where}`);
    recordRow(qrow);
    const row = traffic.measure(`SIGKILL indexer mid-job, echo traffic${where}`);
    recordRow({
      ...row,
      extra: { 'files done at kill': doneAtKill, 'job attempts': view.attempts, chunks: perFile },
    });
    expect(view.status, JSON.stringify(view)).to.equal('succeeded');
    expect(doneAtKill).to.be.lessThan(11);
    expect(view.attempts).to.be.greaterThan(1);
    expect(stored.length).to.equal(perFile);
    expect(view.progress.chunks_done).to.equal(perFile);
    expect(new Set(stored.map((c) => c.generation)).size).to.equal(1);
    expect(new Set(stored.map((c) => `${c.file}#${c.text}`)).size).to.equal(stored.length);
    expect(qrow.sent).to.be.greaterThan(3);
    expectAllAnswered(questions, qrow);
    await expectDelivered(sys, traffic, row);
  });
});
