/**
 * The indexer's live `index-job` events: a job's progress read from its row while it runs, ending
 * with its outcome, on GET /v2/events.
 */
import { expect } from 'chai';
import { setTimeout as sleep } from 'node:timers/promises';
import { JobProgressEvents } from '../src/indexer/progress-events.ts';
import { EventPublisher } from '../src/shared/events/publisher.ts';
import { EVENT_FIELDS, eventsKey } from '../src/shared/events/types.ts';
import { createJob, newJobId } from '../src/shared/knowledge/jobs.ts';
import { createLogger } from '../src/shared/logger.ts';
import { SchemaRegistry } from '../src/shared/schemas.ts';
import {
  startKnowledge,
  index,
  upload,
  waitForJob,
  type KnowledgeEnv,
} from './support/knowledge.ts';
import { write } from './support/knowledge-fixtures.ts';
import {
  connectRedis,
  createTestSchema,
  dropPrefix,
  uniquePrefix,
  waitFor,
} from './support/services.ts';
import { openSse } from './support/sse.ts';

describe('live events of indexing jobs', function () {
  this.timeout(90_000);
  let k: KnowledgeEnv;

  before(async () => {
    k = await startKnowledge();
    await k.startComponents();
  });

  after(async () => {
    await k.stop();
  });

  it('when a job indexes one good and one broken file, then index-job events follow it and the last one is its outcome', async () => {
    const { api } = k;
    const stream = await openSse(api.url, '/v2/events?types=index-job', {
      authorization: `Bearer ${api.adminKey}`,
    });
    try {
      expect(
        (
          await upload(api, 'manuals', {
            'good.csv': write('csv'),
            'broken.pdf': Buffer.from('not a pdf'),
          })
        ).status,
      ).to.equal(201);
      const jobId = await index(api, 'manuals');
      const job = await waitForJob(api, jobId);
      expect(job.status).to.equal('partial');
      const mine = () => stream.events.filter((e) => e.data.job_id === jobId).map((e) => e.data);
      // The outcome is published once the job's row says so, maybe after the API shows it.
      await waitFor(() => mine().some((e) => e.status === 'partial'), {
        what: 'the outcome event',
      });
      expect(mine()[0]!.status).to.be.oneOf(['queued', 'running']);
      expect(mine()[mine().length - 1]).to.deep.equal({
        job_id: jobId,
        collection: 'manuals',
        status: 'partial',
        files_total: 2,
        files_done: 2,
        files_failed: 1,
      });
      // Each event differs from the one before (unchanged reads are not published).
      const json = mine().map((e) => JSON.stringify(e));
      for (let i = 1; i < json.length; i += 1) expect(json[i]).to.not.equal(json[i - 1]);
    } finally {
      stream.close();
    }
  });
});

describe('the indexer’s job events on their own', () => {
  it('when a job is announced again after its outcome was published (a last tick of its watch, then its end), then the outcome is published once', async () => {
    const schema = await createTestSchema();
    const redis = connectRedis();
    const prefix = uniquePrefix();
    const logger = createLogger({ component: 'test', level: 'silent' });
    const events = new EventPublisher({
      redis,
      schemas: new SchemaRegistry(),
      logger,
      prefix,
      maxLen: 1000,
    });
    const progress = new JobProgressEvents({ db: schema.db, events, logger });
    try {
      // Events are dropped while the connection is not ready yet (best effort).
      await redis.ping();
      const jobId = newJobId();
      await createJob(schema.db, { jobId, collection: 'manuals', files: ['a.csv'], options: {} });
      await progress.announce(jobId);
      await schema.db('index_jobs').where({ job_id: jobId }).update({
        status: 'succeeded',
        files_done: 1,
      });
      await progress.announce(jobId);
      await progress.announce(jobId);
      await waitFor(async () => (await redis.xlen(eventsKey(prefix))) >= 2, {
        what: 'two events',
      });
      await sleep(200);
      const statuses = (await redis.xrange(eventsKey(prefix), '-', '+')).map(([, fields]) => {
        const data = fields[fields.indexOf(EVENT_FIELDS.data) + 1]!;
        return (JSON.parse(data) as { status: string }).status;
      });
      expect(statuses).to.deep.equal(['queued', 'succeeded']);
    } finally {
      await dropPrefix(redis, prefix);
      redis.disconnect();
      await schema.drop();
    }
  });
});
