import { runComponent } from '../shared/process.ts';
import { startRetriever } from './worker.ts';

await runComponent(process, 'retriver', (config, logger) => startRetriever(config, logger));
