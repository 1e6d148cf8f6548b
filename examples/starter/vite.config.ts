import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// three.js alone is about 700 kB minified: one chunk is fine for a starter.
export default defineConfig({ plugins: [react()], build: { chunkSizeWarningLimit: 1500 } });
