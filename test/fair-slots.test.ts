import { expect } from 'chai';
import { BotAdmission } from '../src/shared/bus/bot-admission.ts';
import { FairSlots } from '../src/shared/bus/fair-slots.ts';
import { KeyedRunner } from '../src/shared/bus/keyed-runner.ts';

/** A task that runs until `finish()` is called. */
function gate(): { wait: () => Promise<void>; finish: () => void } {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { wait: () => done, finish };
}

/** Lets every promise callback queued now run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('fair handler slots', () => {
  describe('FairSlots', () => {
    it('when one bot asks for more slots than its cap while another waits, then it holds its cap and the other gets the rest', async () => {
      const slots = new FairSlots({ concurrency: 4, perBot: 2 });
      const granted: string[] = [];
      for (let i = 0; i < 10; i += 1) void slots.acquire('a').then(() => granted.push('a'));
      for (let i = 0; i < 3; i += 1) void slots.acquire('b').then(() => granted.push('b'));
      await settle();
      expect(slots.heldBy('a')).to.equal(2);
      expect(slots.heldBy('b')).to.equal(2);
      expect(slots.waiting).to.equal(9);
    });

    it('when slots free up, then waiting bots are served in turn and none goes over its cap', async () => {
      const slots = new FairSlots({ concurrency: 3, perBot: 2 });
      const order: string[] = [];
      const most = new Map<string, number>();
      const take = (bot: string): void => {
        void slots.acquire(bot).then(() => {
          order.push(bot);
          most.set(bot, Math.max(most.get(bot) ?? 0, slots.heldBy(bot)));
        });
      };
      for (const bot of ['a', 'a', 'a', 'a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'c']) take(bot);
      await settle();
      expect(order).to.deep.equal(['a', 'a', 'b']);
      // Free slots one at a time, each from a bot holding one: the turn goes round a, b, c.
      const holders = ['a', 'a', 'b'];
      for (let i = 0; i < 9; i += 1) {
        slots.release(holders.shift()!);
        await settle();
        holders.push(order[order.length - 1]!);
      }
      expect(order.slice(3)).to.deep.equal(['c', 'a', 'b', 'c', 'a', 'b', 'c', 'a', 'a']);
      expect(Math.max(...most.values())).to.be.at.most(2);
    });

    it('when a lone bot is busy, then it holds its cap of slots at once and no more', async () => {
      const slots = new FairSlots({ concurrency: 8, perBot: 6 });
      for (let i = 0; i < 20; i += 1) void slots.acquire('a');
      await settle();
      expect(slots.active).to.equal(6);
      void slots.acquire('b');
      await settle();
      expect(slots.heldBy('b')).to.equal(1);
    });

    it('when the cap equals the concurrency, then a lone bot gets every slot', async () => {
      const slots = new FairSlots({ concurrency: 5, perBot: 5 });
      for (let i = 0; i < 9; i += 1) void slots.acquire('a');
      await settle();
      expect(slots.active).to.equal(5);
    });

    it('when a slot is released that the bot does not hold, then it throws', () => {
      const slots = new FairSlots({ concurrency: 2, perBot: 1 });
      expect(() => slots.release('a')).to.throw(/does not hold/);
    });
  });

  describe('KeyedRunner', () => {
    it('when one bot’s tasks hang, then another bot’s tasks still run, and a key keeps its order', async () => {
      const runner = new KeyedRunner({ concurrency: 4, perBot: 2 });
      const hang = gate();
      const started: string[] = [];
      const results: Promise<void>[] = [];
      for (let i = 0; i < 6; i += 1) {
        results.push(
          runner.run(
            `a${i}`,
            async () => {
              started.push(`a${i}`);
              await hang.wait();
            },
            'bot-a',
          ),
        );
      }
      for (let i = 0; i < 5; i += 1) {
        results.push(
          runner.run(
            'b-conversation',
            async () => {
              started.push(`b${i}`);
              await settle();
            },
            'bot-b',
          ),
        );
      }
      await Promise.all(results.slice(6));
      expect(started.filter((s) => s.startsWith('b'))).to.deep.equal([
        'b0',
        'b1',
        'b2',
        'b3',
        'b4',
      ]);
      expect(started.filter((s) => s.startsWith('a'))).to.deep.equal(['a0', 'a1']);
      hang.finish();
      await runner.idle();
      expect(started.filter((s) => s.startsWith('a'))).to.have.length(6);
    });

    it('when tasks of one key are given under a bot at its cap, then they run one at a time in order', async () => {
      const runner = new KeyedRunner({ concurrency: 4, perBot: 1 });
      const seen: number[] = [];
      let running = 0;
      let most = 0;
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          runner.run(
            i % 2 === 0 ? 'even' : 'odd',
            async () => {
              running += 1;
              most = Math.max(most, running);
              await settle();
              seen.push(i);
              running -= 1;
            },
            'bot',
          ),
        ),
      );
      expect(most).to.equal(1);
      expect(seen.filter((i) => i % 2 === 0)).to.deep.equal([0, 2, 4, 6]);
      expect(seen.filter((i) => i % 2 === 1)).to.deep.equal([1, 3, 5, 7]);
    });
  });

  describe('BotAdmission', () => {
    const ref = (id: number, partition = 0) => ({ partition, id: `${id}-0`, tenure: 0 });
    /** A read past the in-flight bound. */
    const FAIR = { fair: true, room: true };

    it('when the consumer reads within its bound, then a bot over its share is still admitted, until it has entries deferred', () => {
      const admission = new BotAdmission({ perBot: 1 });
      const normal = { fair: false, room: true };
      expect([1, 2, 3].map((i) => admission.admit('a', ref(i), normal))).to.deep.equal([
        true,
        true,
        true,
      ]);
      expect(admission.overShare()).to.equal(true);
      expect(admission.admit('a', ref(4), FAIR)).to.equal(false);
      // Behind: its later entries queue up behind the deferred one, whatever the read.
      expect(admission.admit('a', ref(5), normal)).to.equal(false);
      expect(admission.admit('b', ref(6), { fair: true, room: false })).to.equal(false);
      expect(admission.deferred).to.equal(3);
    });

    it('when a bot has its share admitted, then its further entries are deferred in order while another bot’s are admitted', () => {
      const admission = new BotAdmission({ perBot: 2 });
      const admitted = [1, 2, 3, 4].map((i) => admission.admit('a', ref(i), FAIR));
      expect(admitted).to.deep.equal([true, true, false, false]);
      expect(admission.admit('b', ref(5), FAIR)).to.equal(true);
      expect(admission.deferred).to.equal(2);
      expect(admission.isDeferred(0, '3-0')).to.equal(true);
      admission.finished('a');
      expect(admission.ready()).to.deep.equal(['a']);
      expect(admission.take('a')).to.deep.equal([ref(3)]);
      // Fetching: later entries of the bot queue behind the fetched ones, even with room.
      expect(admission.admit('a', ref(6), FAIR)).to.equal(false);
      admission.fetched('a', [ref(3)], 1);
      expect(admission.isDeferred(0, '3-0')).to.equal(false);
      expect(admission.take('a')).to.deep.equal([]);
      admission.finished('a');
      expect(admission.take('a')).to.deep.equal([ref(4)]);
    });

    it('when a fetch fails, then its entries go back to the head; when a partition is lost, its entries are forgotten', () => {
      const admission = new BotAdmission({ perBot: 1 });
      admission.admit('a', ref(1), FAIR);
      for (const i of [2, 3, 4]) admission.admit('a', ref(i, i === 3 ? 1 : 0), FAIR);
      admission.finished('a');
      const taken = admission.take('a');
      expect(taken).to.deep.equal([ref(2)]);
      admission.putBack('a', taken);
      admission.dropPartition(1);
      expect(admission.deferred).to.equal(2);
      expect(admission.take('a')).to.deep.equal([ref(2)]);
      admission.fetched('a', [ref(2)], 0);
      expect(admission.take('a')).to.deep.equal([ref(4)]);
    });
  });
});
