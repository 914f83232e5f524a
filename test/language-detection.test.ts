/**
 * Language detection reads eld's `medium` table from the JSON `npm run build` writes
 * (scripts/lib/language-model.mjs) instead of compiling the package's object literal: the table
 * read back is eld's own, and the two detectors say the same thing, scores included.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  createDetector,
  eldFolder,
  MODEL_TABLE,
  readTable,
} from '../src/shared/languages/detect.ts';

const TEXTS = [
  'Hello, I would like to change the delivery address of my order',
  'Bonjour, je voudrais réserver une table pour deux personnes ce soir',
  'Hola, ¿a qué hora abre la tienda mañana?',
  'Guten Tag, wann kommt mein Paket an?',
  'Olá, quero cancelar a minha assinatura',
  'Ciao, il mio ordine è arrivato rotto',
  'Здравствуйте, где мой заказ?',
  'こんにちは、注文の状況を教えてください',
  'مرحبا، أريد إلغاء طلبي',
  'ok',
  'hi',
  '12345',
  '',
  'Merci 👍',
];

describe('language detection from the built table', () => {
  it('the build wrote the table, and detection from it says what eld/medium says, scores included', async () => {
    expect(existsSync(MODEL_TABLE), `${MODEL_TABLE} (npm run build writes it)`).to.equal(true);
    const fromTable = await createDetector(MODEL_TABLE);
    const { eld: packaged } = await import('eld/medium');
    for (const text of TEXTS) {
      const [a, b] = [fromTable.detect(text), packaged.detect(text)];
      expect(
        { language: a.language, reliable: a.isReliable(), scores: a.getScores() },
        JSON.stringify(text),
      ).to.deep.equal({ language: b.language, reliable: b.isReliable(), scores: b.getScores() });
    }
    expect(fromTable.detect(TEXTS[1]!).language).to.equal('fr');
    expect(fromTable.detect(TEXTS[6]!).language).to.equal('ru');
  });

  it('the table read back from the build is eld/medium’s, n-gram for n-gram, with one object per distinct score set', async () => {
    const packaged = pathToFileURL(join(eldFolder(), 'src', 'ngrams', 'medium.js'));
    const { ngramsData } = (await import(packaged.href)) as { ngramsData: unknown };
    const table = await readTable(MODEL_TABLE);
    expect(table).to.deep.equal(ngramsData);
    const sets = new Set(Object.values(table.ngrams));
    const distinct = new Set(Object.values(table.ngrams).map((set) => JSON.stringify(set)));
    expect(sets.size).to.equal(distinct.size);
    expect(sets.size).to.be.lessThan(Object.keys(table.ngrams).length / 4);
  });

  it('without a table (sources, no build) it is eld/medium itself', async () => {
    const detector = await createDetector(join(MODEL_TABLE, 'none.json'));
    const { eld: packaged } = await import('eld/medium');
    expect(detector).to.equal(packaged);
  });
});
