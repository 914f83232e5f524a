// The console's build: served by api at /console/ (see docs/console.md). Built into console/dist
// by `npm run console:build`; ./scripts/run.sh and ./scripts/test.sh build it when it is missing
// or older than its sources.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Bundle bytes are budgeted in bench/console, not warned about here.
    chunkSizeWarningLimit: 2000,
  },
});
