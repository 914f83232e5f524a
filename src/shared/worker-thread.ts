/**
 * Starting a worker thread on a TypeScript module. Node 20 does not apply `--import` loaders to a
 * worker's entry module, so the worker starts from a small script that registers tsx in its own
 * thread and then imports the module.
 */
const TSX_API = import.meta.resolve('tsx/esm/api');

/** The `eval` source that starts a worker on the module at `moduleUrl`. */
export function workerBootstrap(moduleUrl: URL): string {
  return `import(${JSON.stringify(TSX_API)})
  .then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl.href)}); });`;
}
