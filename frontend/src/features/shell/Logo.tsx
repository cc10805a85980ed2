export function Logo({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" aria-hidden className={className}>
      <rect width="32" height="32" rx="8" className="fill-primary/15" />
      <path d="M10 11 16 22 22 11" className="stroke-primary" strokeWidth="1.8" fill="none" />
      <circle cx="10" cy="11" r="3" className="fill-primary" />
      <circle cx="22" cy="11" r="3" className="fill-primary" />
      <circle cx="16" cy="22" r="3" className="fill-primary" />
    </svg>
  )
}
