/**
 * What the console may ship for its first page, the sign-in page: JavaScript and CSS, gzip
 * bytes. The editor (CodeMirror, React Flow) must stay out of it; see bench/console/run.ts.
 */
export const SIGN_IN_BUDGET_GZIP_BYTES = 250 * 1024;
