// Print the gzipped size of the dashboard's JS + CSS and fail when the first load is above the
// budget. The first load is what index.html fetches (its scripts, style sheets and module
// preloads); a page loaded on its own when first opened (the Tasks page) is listed apart, with
// its own size, and does not count. Run after `vite build` (npm run build does).
// Usage: node scripts/bundle-size.mjs [dir]
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
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

/** The JS and CSS files index.html loads, relative to `dir` ("assets/index-x.js", "theme.js"). */
function firstLoad() {
  const index = join(dir, 'index.html')
  if (!existsSync(index)) return null
  const html = readFileSync(index, 'utf8')
  const wanted = new Set()
  for (const [tag] of html.matchAll(/<(script|link)\b[^>]*>/g)) {
    const url = /\b(?:src|href)="([^"]+)"/.exec(tag)?.[1]
    if (!url || !/\.(js|css)$/.test(url) || /^[a-z]+:|^\/\//i.test(url)) continue
    if (tag.startsWith('<link') && !/\brel="(stylesheet|modulepreload)"/.test(tag)) continue
    wanted.add(url.replace(/^\.?\//, ''))
  }
  return wanted
}

const initial = firstLoad()
const rows = [...files(dir)]
  .map((path) => {
    const raw = readFileSync(path)
    const file = relative(dir, path).split('\\').join('/')
    return { file, raw: raw.length, gzip: gzipSync(raw, { level: 9 }).length, first: initial === null || initial.has(file) }
  })
  .sort((a, b) => Number(b.first) - Number(a.first) || b.gzip - a.gzip)

if (rows.length === 0) {
  console.error(`no JS or CSS found in ${dir}: did vite build run?`)
  process.exit(1)
}
const kb = (bytes) => (bytes / 1024).toFixed(1).padStart(7) + ' KB'
for (const row of rows) console.log(`${kb(row.gzip)} gz  ${kb(row.raw)} raw  ${row.first ? 'first load' : 'on demand '}  ${row.file}`)
const sum = (list) => list.reduce((total, row) => total + row.gzip, 0)
const first = sum(rows.filter((row) => row.first))
const later = sum(rows.filter((row) => !row.first))
const verdict = first / 1024 <= BUDGET_KB ? 'within' : 'OVER'
console.log(`dashboard first load, JS + CSS: ${(first / 1024).toFixed(1)} KB gzipped (${verdict} the ${BUDGET_KB} KB budget)`)
console.log(`loaded on demand: ${(later / 1024).toFixed(1)} KB gzipped`)
if (verdict === 'OVER') process.exit(1)
