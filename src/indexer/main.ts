import { runComponent } from '../shared/process.ts';
import { startIndexer } from './worker.ts';

await runComponent(process, 'indexer', (config, logger) => startIndexer(config, logger));
