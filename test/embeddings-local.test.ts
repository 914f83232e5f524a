/**
 * The embedded model's thread (src/shared/embeddings/local-provider.ts): batches, a batch past its
 * deadline, and closing while a batch is out. Real model, real thread.
 */
import { expect } from 'chai';
import { LocalEmbeddingProvider } from '../src/shared/embeddings/local-provider.ts';
import { BotwireError } from '../src/shared/errors.ts';

const failure = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('embeddings: the embedded model thread', function () {
  this.timeout(60_000);

  it('when texts are embedded, then each gets a unit vector of 512 values, in order, however they are batched', async () => {
    const provider = new LocalEmbeddingProvider({ batch: 2 });
    try {
      const [alone, both] = await Promise.all([
        provider.embed(['puncture repair']),
        provider.embed(['opening hours', 'puncture repair', 'gift cards']),
      ]);
      expect(both).to.have.length(3);
      for (const vector of [...alone, ...both]) {
        expect(vector).to.have.length(512);
        expect(Math.hypot(...vector)).to.be.closeTo(1, 1e-4);
      }
      // The same text gives the same vector whichever batch carried it.
      expect(both[1]![0]).to.be.closeTo(alone[0]![0]!, 1e-5);
    } finally {
      await provider.close();
    }
  });

  it('when a batch outlasts its deadline, then it fails retryable and the thread is replaced for the next one', async () => {
    // Loading the model alone takes longer than 1 ms: every batch misses this deadline.
    const provider = new LocalEmbeddingProvider({ batchTimeoutMs: 1 });
    try {
      const [first, second] = await Promise.all([
        failure(provider.embed(['one'])),
        failure(provider.embed(['two'])),
      ]);
      for (const error of [first, second]) {
        expect(error).to.be.instanceOf(BotwireError);
        expect((error as BotwireError).code).to.equal('BW_ERR_INTERNAL');
        expect((error as BotwireError).retryable).to.equal(true);
      }
    } finally {
      await provider.close();
    }
  });

  it('when the provider is closed while a batch is out and others wait, then every caller fails BW_ERR_UNAVAILABLE and close ends', async () => {
    const provider = new LocalEmbeddingProvider({ batch: 1 });
    const waiting = [provider.embed(['out']), provider.embed(['queued'])].map(failure);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await provider.close();
    for (const error of await Promise.all(waiting)) {
      expect((error as BotwireError).code).to.equal('BW_ERR_UNAVAILABLE');
    }
    expect(((await failure(provider.embed(['after']))) as BotwireError).code).to.equal(
      'BW_ERR_UNAVAILABLE',
    );
  });
});
