/** An `http` action: method, URL, headers, JSON body, timeout and the variable for the result. */
import { type HttpCall, type HttpMethod, omit } from './flow-types.ts';
import { NumberField, SelectField, TextField } from './field.tsx';
import { JsonValueField } from './json-value-field.tsx';

const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

interface HttpEditorProps {
  pointer: string;
  http: HttpCall;
  onChange: (http: HttpCall) => void;
}

export function HttpEditor({ pointer, http, onChange }: HttpEditorProps) {
  const headers = Object.entries(http.headers ?? {});
  const setHeaders = (entries: [string, string][]): void => {
    const rest = omit(http, 'headers');
    onChange(entries.length > 0 ? { ...rest, headers: Object.fromEntries(entries) } : rest);
  };
  return (
    <>
      <SelectField
        label="Method"
        pointer={`${pointer}/method`}
        value={http.method}
        options={METHODS}
        onChange={(method) => onChange({ ...http, method: method as HttpMethod })}
      />
      <TextField
        label="URL"
        pointer={`${pointer}/url`}
        value={http.url}
        hint="Each {{variable}} is percent-encoded."
        template
        onChange={(url) => onChange({ ...http, url })}
      />
      <fieldset className="sub">
        <legend>Headers</legend>
        {headers.map(([name, value], i) => (
          <div className="row" key={i}>
            <TextField
              label={`Header ${i + 1} name`}
              pointer={`${pointer}/headers/${name}`}
              value={name}
              onChange={(n) => setHeaders(headers.map((h, j) => (j === i ? [n, value] : h)))}
            />
            <TextField
              label={`Header ${i + 1} value`}
              pointer={`${pointer}/headers/${name}/value`}
              value={value}
              onChange={(v) => setHeaders(headers.map((h, j) => (j === i ? [name, v] : h)))}
            />
            <button type="button" onClick={() => setHeaders(headers.filter((_, j) => j !== i))}>
              Remove header {i + 1}
            </button>
          </div>
        ))}
        <button
          type="button"
          onClick={() => setHeaders([...headers, [`X-Header-${headers.length + 1}`, '']])}
        >
          Add header
        </button>
      </fieldset>
      <JsonValueField
        label="Body (JSON; strings are templates)"
        pointer={`${pointer}/body`}
        value={http.body}
        emptyMeans="no body"
        onChange={(body) => {
          const rest = omit(http, 'body');
          onChange(body === undefined ? rest : { ...rest, body });
        }}
      />
      <NumberField
        label="Timeout (ms, 100 to 30000)"
        pointer={`${pointer}/timeout_ms`}
        value={http.timeout_ms}
        hint="Empty: 5000 ms."
        onChange={(timeout) => {
          const rest = omit(http, 'timeout_ms');
          onChange(timeout === undefined ? rest : { ...rest, timeout_ms: timeout });
        }}
      />
      <TextField
        label="Store the result in variable"
        pointer={`${pointer}/store`}
        value={http.store}
        onChange={(store) => onChange({ ...http, store })}
      />
    </>
  );
}
