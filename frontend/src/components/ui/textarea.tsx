import { forwardRef, type ComponentProps } from 'react'
import { cn } from '@/lib/cn'

export const Textarea = forwardRef<HTMLTextAreaElement, ComponentProps<'textarea'>>(function Textarea({ className, ...props }, ref) {
  return (
    <textarea
      ref={ref}
      className={cn(
        'w-full resize-none bg-transparent text-sm leading-relaxed placeholder:text-muted-foreground focus-visible:outline-none disabled:opacity-50',
        className,
      )}
      {...props}
    />
  )
})
