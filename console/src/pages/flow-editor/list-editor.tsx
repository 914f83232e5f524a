/** A send's option list: the label of its button and sections of rows (10 rows in all). */
import { type ListRow, type OptionList, omit } from './flow-types.ts';
import { TextField } from './field.tsx';
import { PhrasesField } from './phrases-field.tsx';

interface ListEditorProps {
  pointer: string;
  list: OptionList;
  onChange: (list: OptionList) => void;
}

export function ListEditor({ pointer, list, onChange }: ListEditorProps) {
  const sections = Array.isArray(list.sections) ? list.sections : [];
  const setRows = (s: number, rows: ListRow[]): void =>
    onChange({ ...list, sections: sections.map((sec, j) => (j === s ? { ...sec, rows } : sec)) });
  return (
    <fieldset className="sub">
      <legend>List</legend>
      <TextField
        label="List button label"
        pointer={`${pointer}/button`}
        value={list.button}
        onChange={(button) => onChange({ ...list, button })}
      />
      {sections.map((section, s) => {
        const rows = Array.isArray(section.rows) ? section.rows : [];
        const base = `${pointer}/sections/${s}`;
        return (
          <fieldset className="sub" key={s}>
            <legend>Section {s + 1}</legend>
            <TextField
              label={`Section ${s + 1} title (optional)`}
              pointer={`${base}/title`}
              value={section.title}
              onChange={(title) =>
                onChange({
                  ...list,
                  sections: sections.map((sec, j) =>
                    j === s ? { ...sec, title: title === '' ? undefined : title } : sec,
                  ),
                })
              }
            />
            {rows.map((row, r) => (
              <div className="row" key={r}>
                <TextField
                  label={`Row ${r + 1} title`}
                  pointer={`${base}/rows/${r}/title`}
                  value={row.title}
                  onChange={(title) =>
                    setRows(
                      s,
                      rows.map((x, k) => (k === r ? { ...x, title } : x)),
                    )
                  }
                />
                <TextField
                  label={`Row ${r + 1} id`}
                  pointer={`${base}/rows/${r}/id`}
                  value={row.id}
                  onChange={(id) =>
                    setRows(
                      s,
                      rows.map((x, k) => (k === r ? { ...x, id } : x)),
                    )
                  }
                />
                <TextField
                  label={`Row ${r + 1} description`}
                  pointer={`${base}/rows/${r}/description`}
                  value={row.description}
                  onChange={(d) =>
                    setRows(
                      s,
                      rows.map((x, k) =>
                        k === r ? { ...x, description: d === '' ? undefined : d } : x,
                      ),
                    )
                  }
                />
                <PhrasesField
                  label={`Row ${r + 1} example phrases (one a line)`}
                  pointer={`${base}/rows/${r}/examples`}
                  phrases={row.examples}
                  onChange={(examples) =>
                    setRows(
                      s,
                      rows.map((x, k) =>
                        k !== r ? x : examples ? { ...x, examples } : omit(x, 'examples'),
                      ),
                    )
                  }
                />
                <button
                  type="button"
                  onClick={() =>
                    setRows(
                      s,
                      rows.filter((_, k) => k !== r),
                    )
                  }
                >
                  Remove row {r + 1} of section {s + 1}
                </button>
              </div>
            ))}
            <button
              type="button"
              onClick={() => {
                const n = rows.length + 1;
                setRows(s, [...rows, { id: `row_${s + 1}_${n}`, title: `Row ${n}` }]);
              }}
            >
              Add row to section {s + 1}
            </button>
            <button
              type="button"
              onClick={() => onChange({ ...list, sections: sections.filter((_, j) => j !== s) })}
            >
              Remove section {s + 1}
            </button>
          </fieldset>
        );
      })}
      <button
        type="button"
        onClick={() => onChange({ ...list, sections: [...sections, { rows: [] }] })}
      >
        Add section
      </button>
    </fieldset>
  );
}
