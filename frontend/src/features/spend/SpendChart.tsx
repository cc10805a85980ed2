// Cost per day as stacked bars, in plain SVG: a money axis, one bar per day of the range, a
// legend, and a tooltip (hover or keyboard focus) with each key's exact amount that day.
import { useEffect, useRef, useState } from 'react'
import type { SpendPoint, SpendStack } from '@/lib/api/spend'
import { formatMoney } from './money'
import { labelEvery, niceTicks, OTHER, stackSeries } from './stack'

const HEIGHT = 240
const TOP = 12
const BOTTOM = 26
const LEFT = 64
const MAX_BAR = 44

/** Mid-lightness hues that read on the light and the dark theme alike; "Other" is grey. */
const HUES = [285, 200, 150, 80, 30, 340, 245]

export function colorOf(key: string, index: number): string {
  return key === OTHER ? 'oklch(0.62 0.02 270)' : `oklch(0.66 0.16 ${HUES[index % HUES.length]})`
}

/** The container's width, followed as it resizes (a fixed width where there is no layout, as in tests). */
function useWidth() {
  const ref = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(720)
  useEffect(() => {
    const element = ref.current
    if (!element || typeof ResizeObserver === 'undefined') return
    const observer = new ResizeObserver(([entry]) => entry && entry.contentRect.width > 0 && setWidth(Math.floor(entry.contentRect.width)))
    observer.observe(element)
    return () => observer.disconnect()
  }, [])
  return [ref, width] as const
}

function Swatch({ color }: { color: string }) {
  return <span className="inline-block size-2.5 rounded-sm" style={{ backgroundColor: color }} />
}

/** A key as shown: the agent's name (the slug in a tooltip) or the model; "(none)" for no key. */
function KeyName({ name, keyOf }: { name: string; keyOf: string }) {
  if (!keyOf) return <>(none)</>
  return name === keyOf ? <>{keyOf}</> : <span title={keyOf}>{name}</span>
}

export function SpendChart({
  series,
  from,
  to,
  currency,
  stack,
  nameOf = (key) => key,
}: {
  series: SpendPoint[]
  from: string
  to: string
  currency: string
  stack: SpendStack
  /** What to call a key (an agent's name); the key itself when left out. */
  nameOf?: (key: string) => string
}) {
  const [ref, width] = useWidth()
  const [active, setActive] = useState<number | null>(null)
  const { columns, keys, totals, max } = stackSeries(series, from, to)
  const ticks = niceTicks(max)
  const top = ticks.at(-1) || 1
  const plot = Math.max(1, width - LEFT)
  const height = HEIGHT - TOP - BOTTOM
  const band = plot / Math.max(1, columns.length)
  const bar = Math.min(MAX_BAR, Math.max(2, band * 0.72))
  const y = (value: number) => TOP + height * (1 - value / top)
  const every = labelEvery(columns.length, plot)
  const color = (key: string) => colorOf(key, keys.indexOf(key))
  const exact = (amount: string | null) => formatMoney(amount, currency, { exact: true })
  const shown = active === null ? undefined : columns[active]

  return (
    <div ref={ref} className="relative" data-testid="spend-chart">
      <svg width={width} height={HEIGHT} role="group" aria-label={`Cost per day by ${stack}`} className="overflow-visible text-[10px]">
        {ticks.map((tick) => (
          <g key={tick} className="fill-muted-foreground">
            <line x1={LEFT} x2={width} y1={y(tick)} y2={y(tick)} className="stroke-border" strokeDasharray={tick ? '2 3' : undefined} />
            <text x={LEFT - 6} y={y(tick)} dy="0.32em" textAnchor="end">
              {formatMoney(tick, currency)}
            </text>
          </g>
        ))}
        {columns.map((column, index) => (
          <g key={column.day} opacity={active === null || active === index ? 1 : 0.55}>
            {column.segments.map((segment) => {
              const size = Math.max(segment.y1 > segment.y0 ? 1 : 0, y(segment.y0) - y(segment.y1))
              return <rect key={segment.key} x={LEFT + index * band + (band - bar) / 2} y={y(segment.y0) - size} width={bar} height={size} fill={color(segment.key)} data-key={segment.key} />
            })}
            {index % every === 0 && (
              <text x={LEFT + (index + 0.5) * band} y={HEIGHT - 8} textAnchor="middle" className="fill-muted-foreground">
                {column.day.slice(5)}
              </text>
            )}
            <rect
              x={LEFT + index * band}
              y={TOP}
              width={band}
              height={height}
              fill="transparent"
              tabIndex={0}
              role="img"
              aria-label={`${column.day}: ${exact(column.total)}`}
              data-testid="spend-bar"
              data-day={column.day}
              className="outline-none focus-visible:stroke-ring"
              onMouseEnter={() => setActive(index)}
              onMouseLeave={() => setActive(null)}
              onFocus={() => setActive(index)}
              onBlur={() => setActive(null)}
            />
          </g>
        ))}
      </svg>
      {shown && (
        <div
          role="status"
          data-testid="spend-tooltip"
          className="pointer-events-none absolute top-0 min-w-44 -translate-x-1/2 space-y-0.5 rounded-md border bg-popover px-3 py-2 text-xs shadow-lg"
          style={{ left: Math.min(Math.max(LEFT + (active! + 0.5) * band, 100), width - 100) }}
        >
          <p className="font-medium">{shown.day}</p>
          {[...shown.segments].reverse().map((segment) => (
            <p key={segment.key} className="flex items-center gap-1.5">
              <Swatch color={color(segment.key)} /> <KeyName name={segment.key === OTHER ? OTHER : nameOf(segment.key)} keyOf={segment.key} />
              <span className="ml-auto pl-4 font-mono">{exact(segment.cost)}</span>
            </p>
          ))}
          <p className="flex border-t pt-1 font-medium">
            Total
            <span className="ml-auto pl-4 font-mono" data-testid="spend-tooltip-total">
              {exact(shown.total)}
              {shown.unpriced && shown.total !== null && ' + unpriced'}
            </span>
          </p>
        </div>
      )}
      <ul aria-label="Legend" className="mt-2 flex flex-wrap gap-x-4 pl-16 text-xs max-sm:gap-y-1 max-sm:pl-0" data-testid="spend-legend">
        {keys.map((key) => (
          <li key={key} className="flex min-w-0 max-w-full items-center gap-1.5">
            <Swatch color={color(key)} />{' '}
            <span className="min-w-0 [overflow-wrap:anywhere]" data-key={key}>
              <KeyName name={key === OTHER ? OTHER : nameOf(key)} keyOf={key} />
            </span>
            <span className="shrink-0 font-mono text-muted-foreground">{formatMoney(totals[key], currency)}</span>
          </li>
        ))}
      </ul>
    </div>
  )
}
