/**
 * What the console may ship for its first page, the sign-in page: JavaScript and CSS, gzip
 * bytes. The editor (CodeMirror, React Flow) must stay out of it; see bench/console/run.ts.
 */
export const SIGN_IN_BUDGET_GZIP_BYTES = 250 * 1024;
/**
 * What opening the flow editor (`/console/bots/<id>/flow`) may ship, JavaScript and CSS, gzip
 * bytes: the entry plus the editor's chunk with React Flow, CodeMirror excluded (it loads when the
 * JSON tab opens). 50 KB over the sign-in page's budget: an operator opens the editor signed in,
 * so the entry is already cached and what is new is React Flow and the editor's forms (about 85 KB
 * gzip on 2026-11-24); the budget leaves room to grow by about as much again, and the whole page
 * still downloads in a quarter of a second on a 10 Mbit/s link.
 */
export const EDITOR_BUDGET_GZIP_BYTES = 300 * 1024;
