/** An `answer_from` action: ask a knowledge collection and store the answer. */
import { type AnswerFrom, omit } from './flow-types.ts';
import { NumberField, TextField } from './field.tsx';

interface AnswerEditorProps {
  pointer: string;
  answer: AnswerFrom;
  onChange: (answer: AnswerFrom) => void;
}

export function AnswerEditor({ pointer, answer, onChange }: AnswerEditorProps) {
  return (
    <>
      <TextField
        label="Collection"
        pointer={`${pointer}/collection`}
        value={answer.collection}
        onChange={(collection) => onChange({ ...answer, collection })}
      />
      <TextField
        label="Question"
        pointer={`${pointer}/query`}
        value={answer.query}
        hint="Usually the answer of an earlier wait, e.g. {{question}}."
        template
        onChange={(query) => onChange({ ...answer, query })}
      />
      <NumberField
        label="Passages to use (1 to 10)"
        pointer={`${pointer}/k`}
        value={answer.k}
        hint="Empty: 3."
        onChange={(k) => {
          const rest = omit(answer, 'k');
          onChange(k === undefined ? rest : { ...rest, k });
        }}
      />
      <TextField
        label="Store the answer in variable"
        pointer={`${pointer}/store`}
        value={answer.store}
        placeholder="answer"
        onChange={(store) => {
          const rest = omit(answer, 'store');
          onChange(store === '' ? rest : { ...rest, store });
        }}
      />
    </>
  );
}
