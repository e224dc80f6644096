import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The renderer is built to dist/renderer with relative asset paths, so the same files load from
// file:// in Electron and from `tickscope serve` over HTTP.
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
  },
});
