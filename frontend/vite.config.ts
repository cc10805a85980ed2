/// <reference types="vitest/config" />
import { fileURLToPath, URL } from 'node:url'
import tailwindcss from '@tailwindcss/vite'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// The build lands inside the Python package, which serves it at `/` (see web/spa.py).
const src = (path: string) => fileURLToPath(new URL(`./src/${path}`, import.meta.url))
const outDir = fileURLToPath(new URL('../src/synapse_agents/web/static', import.meta.url))

export default defineConfig({
  plugins: [react(), tailwindcss()],
  resolve: {
    alias: {
      '@': fileURLToPath(new URL('./src', import.meta.url)),
      // Bundle diet for react-markdown's renderer (the budget is 150 KB gzipped, see
      // scripts/bundle-size.mjs): small stand-ins for three dependencies that only matter for
      // raw HTML, which Synapse never renders. src/components/markdown tests cover the output.
      'property-information': src('lib/shims/property-information.ts'),
      '@ungap/structured-clone': src('lib/shims/structured-clone.ts'),
      'style-to-object': src('lib/shims/style-to-object.ts'),
    },
  },
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    // No inline scripts anywhere: the page must run under `script-src 'self'`.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    reportCompressedSize: false,
  },
  experimental: {
    // Chunks loaded on demand (and what they preload) are fetched under the mount prefix the page
    // was served with (`synapse_agents.mount(app, '/synapse')`): src/lib/base.ts sets the function.
    renderBuiltUrl(filename, { hostType }) {
      if (hostType === 'js') return { runtime: `window.__synapseAsset(${JSON.stringify(filename)})` }
      return undefined
    },
  },
  server: {
    // `npm run dev` talks to a `synapse serve` on the default port.
    proxy: { '/api': { target: 'http://127.0.0.1:8765', changeOrigin: false } },
  },
  test: {
    environment: 'jsdom',
    globals: true,
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
    // A jsdom test that walks a whole page takes a few seconds on a busy 2-core machine.
    testTimeout: 20_000,
  },
})
