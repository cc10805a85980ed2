import { ChevronLeft, ChevronRight } from '@/components/icons'
import { cn } from '@/lib/cn'
import { buttonVariants } from './button'

/** The page numbers to show around `current` of `total`, with `null` for a gap: 1 … 4 5 6 … 20. */
export function pageWindow(current: number, total: number, radius = 1): (number | null)[] {
  if (total <= 7) return Array.from({ length: total }, (_, i) => i + 1)
  const pages: (number | null)[] = [1]
  const start = Math.max(2, current - radius)
  const end = Math.min(total - 1, current + radius)
  if (start > 2) pages.push(null)
  for (let page = start; page <= end; page++) pages.push(page)
  if (end < total - 1) pages.push(null)
  pages.push(total)
  return pages
}

export function Pagination({ page, pages, onPage }: { page: number; pages: number; onPage: (page: number) => void }) {
  if (pages <= 1) return null
  const link = (active: boolean) =>
    cn(buttonVariants({ variant: active ? 'outline' : 'ghost', size: 'icon' }), 'font-mono text-xs', active && 'bg-accent')
  return (
    <nav aria-label="Pages" className="flex items-center gap-1">
      <button
        type="button"
        className={cn(buttonVariants({ variant: 'ghost', size: 'sm' }))}
        onClick={() => onPage(page - 1)}
        disabled={page <= 1}
        aria-label="Previous page"
      >
        <ChevronLeft /> Prev
      </button>
      {pageWindow(page, pages).map((n, i) =>
        n === null ? (
          <span key={`gap-${i}`} className="px-1 text-muted-foreground">
            …
          </span>
        ) : (
          <button
            type="button"
            key={n}
            className={link(n === page)}
            aria-current={n === page ? 'page' : undefined}
            aria-label={`Page ${n}`}
            onClick={() => onPage(n)}
          >
            {n}
          </button>
        ),
      )}
      <button
        type="button"
        className={cn(buttonVariants({ variant: 'ghost', size: 'sm' }))}
        onClick={() => onPage(page + 1)}
        disabled={page >= pages}
        aria-label="Next page"
      >
        Next <ChevronRight />
      </button>
    </nav>
  )
}
