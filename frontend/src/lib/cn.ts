// Class names joined with clsx, then de-duplicated so a caller's utility replaces the component's
// default of the same kind (`h-9` then `h-8` keeps `h-8`). A small stand-in for tailwind-merge
// that knows the utility groups these components actually override.
import { clsx, type ClassValue } from 'clsx'

const SIZES = /^text-(xs|sm|base|lg|xl|[2-9]xl|\[[^\]]+\])$/
const ALIGN = /^text-(left|center|right|justify|start|end)$/
const WRAP = /^text-(wrap|nowrap|balance|pretty|ellipsis|clip)$/
const WEIGHTS = /^font-(thin|extralight|light|normal|medium|semibold|bold|extrabold|black)$/
const FAMILIES = /^font-(sans|serif|mono)$/
const BORDER_WIDTH = /^border(-[xytrbl])?(-\d+)?$/
const BORDER_STYLE = /^border-(solid|dashed|dotted|double|none)$/

const PREFIXES = [
  'min-w-', 'max-w-', 'min-h-', 'max-h-', 'size-', 'w-', 'h-',
  'px-', 'py-', 'pt-', 'pb-', 'pl-', 'pr-', 'p-', 'mx-', 'my-', 'mt-', 'mb-', 'ml-', 'mr-', 'm-',
  'gap-', 'bg-', 'shadow', 'opacity-', 'justify-', 'items-', 'leading-', 'tracking-',
  'z-', 'top-', 'left-', 'right-', 'bottom-', 'inset-', 'whitespace-',
]

/** The conflict group of one class (variants included), or null when it never conflicts. */
export function groupOf(name: string): string | null {
  const cut = name.lastIndexOf(':')
  const variant = cut === -1 ? '' : name.slice(0, cut + 1)
  const base = name.slice(cut + 1).replace(/^!/, '')
  if (SIZES.test(base)) return `${variant}text-size`
  if (ALIGN.test(base)) return `${variant}text-align`
  if (WRAP.test(base)) return `${variant}text-wrap`
  if (base.startsWith('text-')) return `${variant}text-color`
  if (WEIGHTS.test(base)) return `${variant}font-weight`
  if (FAMILIES.test(base)) return `${variant}font-family`
  if (BORDER_STYLE.test(base)) return `${variant}border-style`
  if (BORDER_WIDTH.test(base)) return `${variant}border-width:${base.match(/^border(-[xytrbl])?/)?.[1] ?? ''}`
  if (base.startsWith('border-')) return `${variant}border-color`
  const rounded = base.match(/^rounded(-(?:t|b|l|r|s|e|tl|tr|bl|br|ss|se|es|ee)(?=-|$))?/)
  if (rounded) return `${variant}rounded${rounded[1] ?? ''}`
  const overflow = base.match(/^overflow(-[xy])?-/)
  if (overflow) return `${variant}overflow${overflow[1] ?? ''}`
  if (['block', 'inline', 'inline-block', 'flex', 'inline-flex', 'grid', 'hidden', 'contents'].includes(base)) return `${variant}display`
  const prefix = PREFIXES.find((p) => base.startsWith(p))
  return prefix ? `${variant}${prefix}` : null
}

export function cn(...inputs: ClassValue[]): string {
  const classes = clsx(inputs).split(' ').filter(Boolean)
  const last = new Map<string, number>()
  classes.forEach((name, index) => {
    const group = groupOf(name)
    if (group) last.set(group, index)
  })
  return classes.filter((name, index) => {
    const group = groupOf(name)
    return group === null || last.get(group) === index
  }).join(' ')
}
