// Print the gzipped size of the dashboard's JS + CSS and fail above the budget.
// Run after `vite build` (npm run build does). Usage: node scripts/bundle-size.mjs [dir]
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'

const BUDGET_KB = 150
const dir = process.argv[2] ?? fileURLToPath(new URL('../../src/synapse_agents/web/static', import.meta.url))

function* files(folder) {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name)
    if (statSync(path).isDirectory()) yield* files(path)
    else if (/\.(js|css)$/.test(name)) yield path
  }
}

const rows = [...files(dir)]
  .map((path) => {
    const raw = readFileSync(path)
    return { file: relative(dir, path), raw: raw.length, gzip: gzipSync(raw, { level: 9 }).length }
  })
  .sort((a, b) => b.gzip - a.gzip)

const kb = (bytes) => (bytes / 1024).toFixed(1).padStart(7) + ' KB'
for (const row of rows) console.log(`${kb(row.gzip)} gz  ${kb(row.raw)} raw  ${row.file}`)
const total = rows.reduce((sum, row) => sum + row.gzip, 0)
const verdict = total / 1024 <= BUDGET_KB ? 'within' : 'OVER'
console.log(`dashboard JS + CSS: ${(total / 1024).toFixed(1)} KB gzipped (${verdict} the ${BUDGET_KB} KB budget)`)
if (rows.length === 0) {
  console.error(`no JS or CSS found in ${dir}: did vite build run?`)
  process.exit(1)
}
if (verdict === 'OVER') process.exit(1)
