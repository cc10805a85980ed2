// One component for every icon: a 24×24 stroked SVG, decorative unless given a label.
import { createElement, type SVGProps } from 'react'
import { cn } from '@/lib/cn'

type Node = [string, Record<string, string>]
export type IconProps = SVGProps<SVGSVGElement>

export function icon(nodes: Node[]) {
  return function Icon({ className, ...props }: IconProps) {
    return (
      <svg
        xmlns="http://www.w3.org/2000/svg"
        width="24"
        height="24"
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        strokeWidth={2}
        strokeLinecap="round"
        strokeLinejoin="round"
        aria-hidden={props['aria-label'] ? undefined : true}
        className={cn('shrink-0', className)}
        {...props}
      >
        {nodes.map(([tag, attrs], i) => createElement(tag, { key: i, ...attrs }))}
      </svg>
    )
  }
}
