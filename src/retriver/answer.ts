/**
 * The text a knowledge question is answered with. Without an LLM: the best passages, each cited
 * by its source. With an OpenAI-compatible chat completions endpoint configured: the model's
 * answer written from those passages only (the question and each passage sent as delimited data,
 * `src/shared/llm-data.ts`), followed by a line that says it was written by a model and from
 * which sources. When the model fails or is slow, the passages answer instead.
 */
import { chatCompletion, type ChatEndpoint } from '../shared/chat-completions.ts';
import { BotwireError } from '../shared/errors.ts';
import { citeSource, MARK, type SearchHit } from '../shared/knowledge/search.ts';
import { dataBlock, DATA_FRAME } from '../shared/llm-data.ts';

/** Passages quoted in an answer without an LLM. */
export const PASSAGES_IN_ANSWER = 3;

/** The endpoint (`LLM_API_URL`, `LLM_API_KEY`), `LLM_MODEL`, and how long an answer may take (ms). */
export interface LlmSettings extends ChatEndpoint {
  model: string;
  timeoutMs: number;
}

const plain = (snippet: string): string =>
  snippet.replaceAll(MARK.start, '').replaceAll(MARK.stop, '').replace(/\s+/g, ' ').trim();

/** The answer when nothing matched. */
export function nothingFound(collection: string): string {
  return `I found nothing about that in ${collection}.`;
}

/** The best passages, numbered, each with its source. */
export function passagesAnswer(hits: readonly SearchHit[]): string {
  return hits
    .slice(0, PASSAGES_IN_ANSWER)
    .map(
      (hit, i) =>
        `${i + 1}. ${plain(hit.snippet) || hit.text.slice(0, 300)}\n(${citeSource(hit.source)})`,
    )
    .join('\n\n');
}

const SYSTEM_PROMPT = [
  'You answer questions for the users of a chat bot, using only the numbered passages given.',
  'Cite the passages you use as [1], [2]. If the passages do not contain the answer, say that you do not know.',
  'Answer briefly, in the language of the question.',
  DATA_FRAME,
].join(' ');

/**
 * Asks the LLM for an answer from `hits`.
 * @throws BotwireError `BW_ERR_UPSTREAM` when the endpoint fails, times out or answers nothing.
 */
export async function llmAnswer(
  llm: LlmSettings,
  question: string,
  hits: readonly SearchHit[],
): Promise<string> {
  // The question and the passages (documents come from anywhere) are data, never instructions.
  const passages = hits
    .map(
      (hit, i) =>
        `[${i + 1}] (${citeSource(hit.source)})\n${dataBlock(`passage_${i + 1}`, hit.text)}`,
    )
    .join('\n\n');
  let content: string;
  try {
    ({ content } = await chatCompletion(
      llm,
      {
        model: llm.model,
        temperature: 0.2,
        messages: [
          { role: 'system', content: SYSTEM_PROMPT },
          {
            role: 'user',
            content: `Question:\n${dataBlock('question', question)}\n\nPassages:\n${passages}`,
          },
        ],
      },
      { signal: AbortSignal.timeout(llm.timeoutMs) },
    ));
  } catch (error) {
    throw new BotwireError('BW_ERR_UPSTREAM', `LLM: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const sources = [...new Set(hits.map((hit) => citeSource(hit.source)))].join('; ');
  return `${content}\n\n(Written by an AI model from: ${sources})`;
}
