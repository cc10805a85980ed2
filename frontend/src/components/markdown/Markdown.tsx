// Markdown from models and agent instructions. The text is untrusted: raw HTML is dropped, only
// http(s), mailto and in-page links survive, links open in a new tab without an opener, and
// images are shown as links (a model's markdown never makes the browser fetch anything).
import { memo } from 'react'
import ReactMarkdown, { defaultUrlTransform, type Components } from 'react-markdown'
import { cn } from '@/lib/cn'

const SAFE = /^(https?:|mailto:|#|\/(?!\/))/i

/** Keep a URL only when it is http(s), mailto, a fragment or a same-site path. */
export function safeUrl(url: string): string {
  const cleaned = defaultUrlTransform(url)
  return cleaned && SAFE.test(cleaned.trim()) ? cleaned : ''
}

const components: Components = {
  a: ({ href, children }) =>
    href ? (
      <a href={href} target="_blank" rel="noopener noreferrer">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  img: ({ src, alt }) =>
    typeof src === 'string' && src ? (
      <a href={src} target="_blank" rel="noopener noreferrer">
        {alt || src}
      </a>
    ) : (
      <span>{alt}</span>
    ),
}

export const Markdown = memo(function Markdown({ text, className }: { text: string; className?: string }) {
  return (
    <div className={cn('prose-synapse', className)}>
      <ReactMarkdown skipHtml urlTransform={safeUrl} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  )
})
