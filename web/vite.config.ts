import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The control UI: built into web/dist, which the gateway serves at / (src/surfaces/http/control-ui.ts).
// No CDN and no inline script: the page's CSP allows only its own scripts and styles.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // One script and one stylesheet: the app is small, and the gateway serves web/dist as listed.
    chunkSizeWarningLimit: 400,
  },
});
