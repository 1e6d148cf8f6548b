import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// three.js alone is about 700 kB minified: one chunk is fine for a starter (with Rapier, whose WASM is
// inlined, about 2 MB more: raise the limit or give Rapier its own chunk).
export default defineConfig({ plugins: [react()], build: { chunkSizeWarningLimit: 1500 } });
