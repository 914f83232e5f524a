/**
 * Starting a worker thread on one of our modules. Compiled, the worker imports the module's `.js`.
 * From sources: Node 20 does not apply `--import` loaders to a worker's entry module, so the
 * worker starts from a small script that registers tsx in its own thread and then imports the
 * module (tsx is resolved only then: the image, which runs compiled, does not ship it).
 */
import { COMPILED, runnableModule } from './runtime-layout.ts';

/** The `eval` source that starts a worker on the module at `moduleUrl` (its `.ts` URL). */
export function workerBootstrap(moduleUrl: URL): string {
  const module = JSON.stringify(runnableModule(moduleUrl).href);
  if (COMPILED) return `import(${module});`;
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return `import(${tsx}).then((tsx) => { tsx.register(); return import(${module}); });`;
}
