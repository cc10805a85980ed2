import { forwardRef, type ComponentProps } from 'react'
import { cn } from '@/lib/cn'

export const Input = forwardRef<HTMLInputElement, ComponentProps<'input'>>(function Input({ className, type = 'text', ...props }, ref) {
  return (
    <input
      ref={ref}
      type={type}
      className={cn(
        'h-9 w-full min-w-0 rounded-md border border-input bg-transparent px-3 text-sm placeholder:text-muted-foreground focus-visible:outline-2 focus-visible:outline-ring disabled:opacity-50',
        className,
      )}
      {...props}
    />
  )
})
