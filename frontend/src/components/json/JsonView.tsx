// The one JSON viewer: a collapsible tree used for tool arguments and results, structured output,
// schemas and metadata. Values are rendered as React text (never as HTML).
import { ChevronRight } from '@/components/icons'
import { useState } from 'react'
import { cn } from '@/lib/cn'
import { CopyButton } from '@/components/common/CopyButton'
import { formatBytes, formatInt } from '@/lib/format'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

const MAX_STRING = 600
/** Entries of an array or object shown at first, and added by each "show more". */
const MAX_ITEMS = 100
const MORE_ITEMS = 1000

function isContainer(value: unknown): value is Json[] | Record<string, Json> {
  return typeof value === 'object' && value !== null
}

function entriesOf(value: Json[] | Record<string, Json>): [string, Json][] {
  return Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value)
}

function Primitive({ value }: { value: unknown }) {
  const [full, setFull] = useState(false)
  if (value === null || value === undefined) return <span className="text-muted-foreground">null</span>
  if (typeof value === 'boolean') return <span className="text-warning">{String(value)}</span>
  if (typeof value === 'number') return <span className="text-sky-600 dark:text-sky-400">{String(value)}</span>
  const text = String(value)
  const long = text.length > MAX_STRING && !full
  return (
    <span className="whitespace-pre-wrap break-all text-emerald-700 dark:text-emerald-400">
      "{long ? text.slice(0, MAX_STRING) : text}
      {long && (
        <button type="button" onClick={() => setFull(true)} className="mx-1 cursor-pointer rounded bg-muted px-1 text-muted-foreground hover:text-foreground">
          … show all {formatBytes(text.length)}
        </button>
      )}
      "
    </span>
  )
}

function Key({ name, isIndex }: { name: string | undefined; isIndex: boolean }) {
  if (name === undefined) return null
  return <span className={isIndex ? 'text-muted-foreground' : 'text-violet-700 dark:text-violet-300'}>{isIndex ? name : `"${name}"`}: </span>
}

function Node({ name, isIndex, value, depth, openDepth }: { name?: string; isIndex: boolean; value: unknown; depth: number; openDepth: number }) {
  const [open, setOpen] = useState(depth < openDepth)
  const [limit, setLimit] = useState(MAX_ITEMS)
  if (!isContainer(value)) {
    return (
      <div className="pl-4">
        <Key name={name} isIndex={isIndex} />
        <Primitive value={value} />
      </div>
    )
  }
  const array = Array.isArray(value)
  const items = entriesOf(value)
  const [start, end] = array ? ['[', ']'] : ['{', '}']
  if (items.length === 0)
    return (
      <div className="pl-4">
        <Key name={name} isIndex={isIndex} />
        <span className="text-muted-foreground">{start + end}</span>
      </div>
    )
  return (
    <div className="pl-4">
      <button
        type="button"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        className="-ml-4 inline-flex cursor-pointer items-baseline rounded text-left hover:bg-muted/70"
      >
        <ChevronRight className={cn('size-3 translate-y-0.5 self-start text-muted-foreground transition-transform', open && 'rotate-90')} />
        <span className="pl-1">
          <Key name={name} isIndex={isIndex} />
          <span className="text-muted-foreground">{start}</span>
          {!open && (
            <span className="text-muted-foreground">
              {' '}
              {items.length} {array ? (items.length === 1 ? 'item' : 'items') : items.length === 1 ? 'key' : 'keys'} {end}
            </span>
          )}
        </span>
      </button>
      {open && (
        <>
          {items.slice(0, limit).map(([key, child]) => (
            <Node key={key} name={key} isIndex={array} value={child} depth={depth + 1} openDepth={openDepth} />
          ))}
          {items.length > limit && (
            <div className="pl-4">
              <button
                type="button"
                onClick={() => setLimit(limit + MORE_ITEMS)}
                className="cursor-pointer rounded bg-muted px-1 text-muted-foreground hover:text-foreground"
              >
                … {formatInt(items.length - limit)} more {array ? 'items' : 'keys'}, show {formatInt(Math.min(MORE_ITEMS, items.length - limit))}
              </button>
            </div>
          )}
          <div className="text-muted-foreground">{end}</div>
        </>
      )}
    </div>
  )
}

/** Show `value` as a JSON tree, opened `openDepth` levels deep, with a copy button. */
export function JsonView({
  value,
  openDepth = 2,
  className,
  copy = true,
}: {
  value: unknown
  openDepth?: number
  className?: string
  copy?: boolean
}) {
  return (
    <div className={cn('group/json relative rounded-md border bg-muted/40 py-2 pl-1.5 pr-8 font-mono text-xs leading-5', className)} data-testid="json-view">
      {copy && (
        <CopyButton
          text={() => (typeof value === 'string' ? value : JSON.stringify(value, null, 2))}
          className="absolute right-1 top-1 opacity-0 group-hover/json:opacity-100 focus-visible:opacity-100"
        />
      )}
      {/* The root's caret sits in the root row's left padding: inside the box, not on its border. */}
      <div className="overflow-x-auto">
        <Node value={value === undefined ? null : value} isIndex={false} depth={0} openDepth={openDepth} />
      </div>
    </div>
  )
}
