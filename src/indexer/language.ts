/** The text search configuration a collection is indexed and searched with. */
import type { Knex } from '../shared/db.ts';
import { detectLanguage } from '../shared/languages/detect.ts';

/** Postgres text search configurations by the ISO 639-1 code eld detects. */
const CONFIG_OF: Record<string, string> = {
  ar: 'arabic',
  hy: 'armenian',
  eu: 'basque',
  ca: 'catalan',
  da: 'danish',
  nl: 'dutch',
  en: 'english',
  fi: 'finnish',
  fr: 'french',
  de: 'german',
  el: 'greek',
  hi: 'hindi',
  hu: 'hungarian',
  id: 'indonesian',
  ga: 'irish',
  it: 'italian',
  lt: 'lithuanian',
  ne: 'nepali',
  no: 'norwegian',
  nb: 'norwegian',
  pt: 'portuguese',
  ro: 'romanian',
  ru: 'russian',
  sr: 'serbian',
  es: 'spanish',
  sv: 'swedish',
  ta: 'tamil',
  tr: 'turkish',
  yi: 'yiddish',
};

/** Characters of text the language is detected from. */
export const SAMPLE_CHARS = 20_000;

/**
 * The text search configuration for a collection whose first indexed text is `sample`: the
 * detected language's, when Postgres has it and the detection is reliable; else `simple` (no
 * stemming, no stop words), which works for every language.
 */
export async function chooseLanguage(db: Knex, sample: string): Promise<string> {
  const { language, reliable } = await detectLanguage(sample.slice(0, SAMPLE_CHARS));
  const config = reliable && language ? CONFIG_OF[language] : undefined;
  if (!config) return 'simple';
  const found = await db<{ cfgname: string }>('pg_catalog.pg_ts_config')
    .where({ cfgname: config })
    .first('cfgname');
  return found ? config : 'simple';
}
