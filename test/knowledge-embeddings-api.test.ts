/**
 * The OpenAI-compatible embeddings provider against a stand-in server on loopback (a third
 * party's API): batching, 429 with Retry-After, a timeout, answers of the wrong shape, which
 * are refused with their code and leave nothing stored, and searches while the provider is down.
 */
import { expect } from 'chai';
import { embedChunks } from '../src/indexer/embed-chunks.ts';
import { beginAttempt, ensureCollection } from '../src/indexer/store.ts';
import {
  ApiEmbeddingProvider,
  retryAfterMs,
  type ApiProviderOptions,
} from '../src/shared/embeddings/api-provider.ts';
import { BotwireError } from '../src/shared/errors.ts';
import { createJob } from '../src/shared/knowledge/jobs.ts';
import { createEmbedders } from '../src/shared/embeddings/embedders.ts';
import { createNearestChunks } from '../src/shared/embeddings/nearest.ts';
import { searchKnowledge } from '../src/shared/knowledge/hybrid.ts';
import { answer, standIn, vectorOf } from './support/embeddings-stub.ts';
import { indexTexts } from './support/knowledge.ts';
import { createTestSchema, type TestSchema } from './support/services.ts';

/** A provider of model `m` calling the stand-in at `url`, without a key. */
const apiProvider = (
  url: string,
  options: Pick<ApiProviderOptions, 'dimensions'> & Partial<ApiProviderOptions>,
): ApiEmbeddingProvider =>
  new ApiEmbeddingProvider({ baseUrl: url, apiKey: '', model: 'm', ...options });

describe('knowledge: the embeddings API provider', function () {
  this.timeout(30_000);

  it('when 10 texts are embedded with batches of 4, then three calls carry them in order, with the key and dimensions', async () => {
    const api = await standIn((call, _n, res) => answer(res, call.input, 8));
    try {
      const provider = new ApiEmbeddingProvider({
        baseUrl: api.url,
        apiKey: 'sk-test',
        model: 'm',
        dimensions: 8,
        batch: 4,
      });
      const texts = Array.from({ length: 10 }, (_, i) => `text ${'x'.repeat(i)}`);
      const vectors = await provider.embed(texts);
      expect(api.calls.map((c) => c.input.length)).to.deep.equal([4, 4, 2]);
      expect(api.calls.flatMap((c) => c.input)).to.deep.equal(texts);
      expect(api.calls[0]).to.include({ authorization: 'Bearer sk-test', dimensions: 8 });
      expect(vectors).to.have.length(10);
      // In order of the texts (the stand-in answers them reversed, by index), and unit length.
      const expected = vectorOf(texts[3]!, 8);
      const norm = Math.hypot(...expected);
      expect(vectors[3]![0]).to.be.closeTo(expected[0]! / norm, 1e-6);
      expect(Math.hypot(...vectors[7]!)).to.be.closeTo(1, 1e-5);
      expect(provider.model).to.equal('api:m@8');
    } finally {
      await api.close();
    }
  });

  it('when the API answers 429 with Retry-After, then the call waits that long and is tried again', async () => {
    const api = await standIn((call, n, res) => {
      if (n === 1) {
        res.statusCode = 429;
        res.setHeader('retry-after', '1');
        res.end('{}');
        return;
      }
      answer(res, call.input, 4);
    });
    try {
      const provider = apiProvider(api.url, { dimensions: 0, backoffMs: 10 });
      const started = Date.now();
      const vectors = await provider.embed(['a', 'b']);
      expect(vectors).to.have.length(2);
      expect(api.calls).to.have.length(2);
      // The second call came after the asked second, not after the 10 ms backoff.
      expect(Date.now() - started).to.be.at.least(950);
    } finally {
      await api.close();
    }
    expect(retryAfterMs('2')).to.equal(2000);
    expect(retryAfterMs(null)).to.equal(undefined);
  });

  it('when the API never answers, then each call times out and the embed fails BW_ERR_UPSTREAM after its tries', async () => {
    const api = await standIn(() => undefined); // holds every request
    try {
      const provider = apiProvider(api.url, {
        dimensions: 0,
        timeoutMs: 200,
        retries: 1,
        backoffMs: 10,
      });
      const error = await provider.embed(['a']).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(BotwireError);
      expect((error as BotwireError).code).to.equal('BW_ERR_UPSTREAM');
      expect(api.calls).to.have.length(2);
    } finally {
      await api.close();
    }
  });

  describe("a file's chunks embedded by the indexer", () => {
    let schema: TestSchema;
    before(async () => {
      schema = await createTestSchema();
    });
    after(async () => {
      await schema?.drop();
    });
    /** A running job of a new collection `name`: its collection's id and the job's row id. */
    const startJob = async (name: string): Promise<{ collectionId: string; jobId: string }> => {
      const { db } = schema;
      await createJob(db, { jobId: `job_${name}`, collection: name, files: [], options: {} });
      const job = (await beginAttempt(db, `job_${name}`))!;
      return { collectionId: await ensureCollection(db, name), jobId: job.id };
    };

    it('when 70 texts are embedded with EMBEDDINGS_BATCH 64, then two calls carry them (64 and 6) and each text has one vector', async () => {
      const api = await standIn((call, _n, res) => answer(res, call.input, 8));
      try {
        const provider = apiProvider(api.url, { dimensions: 8, batch: 64 });
        const texts = Array.from({ length: 70 }, (_, i) => `text number ${i}`);
        const made = await embedChunks(schema.db, {
          ...(await startJob('batch')),
          provider,
          texts,
        });
        expect(made).to.equal(70);
        expect(api.calls.map((c) => c.input.length)).to.deep.equal([64, 6]);
        const stored = await schema.db('chunk_vectors').count({ n: '*' }).first();
        expect(stored).to.deep.equal({ n: '70' });
      } finally {
        await api.close();
      }
    });

    it('when vectors of another dimension come back, then BW_ERR_EMBEDDINGS_INVALID and nothing is stored', async () => {
      const api = await standIn((call, _n, res) => answer(res, call.input, 3));
      try {
        const provider = apiProvider(api.url, { dimensions: 8 });
        const { db } = schema;
        const job = await startJob('dims');
        const error = await embedChunks(db, {
          ...job,
          provider,
          texts: ['one', 'two'],
        }).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect((error as BotwireError).code).to.equal('BW_ERR_EMBEDDINGS_INVALID');
        expect((error as BotwireError).retryable).to.equal(false);
        const stored = db('chunk_vectors').where({ collection_id: job.collectionId });
        expect(await stored.count({ n: '*' }).first()).to.deep.equal({ n: '0' });
        // Too few vectors for the texts: refused the same way.
        const short = await standIn((_call, _n, res) => answer(res, ['only one'], 8));
        try {
          const refused = await apiProvider(short.url, { dimensions: 0 })
            .embed(['a', 'b'])
            .then(
              () => undefined,
              (e: unknown) => e,
            );
          expect((refused as BotwireError).code).to.equal('BW_ERR_EMBEDDINGS_INVALID');
        } finally {
          await short.close();
        }
      } finally {
        await api.close();
      }
    });
  });

  describe('searches while the provider is down', () => {
    let schema: TestSchema;
    let failing = false;
    let holding = false;
    let api: Awaited<ReturnType<typeof standIn>>;
    before(async () => {
      schema = await createTestSchema();
      api = await standIn((call, _n, res) => {
        if (holding) return; // never answers
        if (failing) {
          res.statusCode = 500;
          res.end('{}');
          return;
        }
        answer(res, call.input, 8);
      });
      const embedders = createEmbedders({
        defaultChoice: 'api',
        apiUrl: api.url,
        apiKey: '',
        apiModel: 'm',
        apiDimensions: 0,
        apiTimeoutMs: 1000,
        apiBatch: 8,
        localBatch: 16,
      });
      const { db } = schema;
      await indexTexts(db, {
        collection: 'down',
        jobId: 'job_down',
        texts: ['Brake pads are replaced in ten minutes.', 'Gift cards never expire.'],
        provider: embedders.forChoice('api')!,
      });
      deps = {
        db,
        embedders,
        vectors: createNearestChunks(db, { index: 'auto', cacheBytes: 1024 * 1024 }),
        queryTimeoutMs: 300,
      };
    });
    let deps: Parameters<typeof searchKnowledge>[0];
    after(async () => {
      await api?.close();
      await schema?.drop();
    });

    it('when the provider fails or hangs and no mode was asked, then the words answer (mode words, fallback says why); a mode by meaning asked fails BW_ERR_UPSTREAM', async () => {
      expect((await searchKnowledge(deps, 'down', 'brake pads', 3)).mode).to.equal('hybrid');
      for (const trouble of ['failing', 'holding'] as const) {
        failing = trouble === 'failing';
        holding = trouble === 'holding';
        const found = await searchKnowledge(deps, 'down', 'brake pads', 3);
        expect(found.mode, trouble).to.equal('words');
        expect(found.fallback, trouble).to.be.a('string');
        expect(found.hits.map((hit) => hit.source)).to.deep.equal([{ file: 'help.pdf', page: 1 }]);
        const refused = await searchKnowledge(deps, 'down', 'brake pads', 3, 'semantic').then(
          () => undefined,
          (e: unknown) => e,
        );
        expect((refused as BotwireError).code, trouble).to.equal('BW_ERR_UPSTREAM');
      }
      failing = false;
      holding = false;
    });
  });
});
