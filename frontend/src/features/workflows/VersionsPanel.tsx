// Every version of a workflow, newest first; opening one shows what changed from the version
// before it, line by line (`diff`'s line diff of the two definitions as indented JSON).
import { diffLines } from 'diff'
import { useState } from 'react'
import { cn } from '@/lib/cn'
import { formatRelative } from '@/lib/format'
import type { WorkflowVersion } from './api'
import { shown } from './definition'
import { useWorkflowVersions } from './queries'

export function VersionDiff({ before, after }: { before: unknown; after: unknown }) {
  const parts = diffLines(before === undefined ? '' : shown(before), shown(after))
  return (
    <pre className="max-h-96 overflow-auto rounded-md bg-muted/40 p-2 text-xs" aria-label="Changes">
      {parts.map((part, index) => (
        <span
          key={index}
          className={cn('block whitespace-pre-wrap', part.added && 'bg-success/15 text-success', part.removed && 'bg-destructive/15 text-destructive')}
          data-change={part.added ? 'added' : part.removed ? 'removed' : 'same'}
        >
          {part.value
            .replace(/\n$/, '')
            .split('\n')
            .map((line) => `${part.added ? '+' : part.removed ? '-' : ' '} ${line}`)
            .join('\n')}
        </span>
      ))}
    </pre>
  )
}

export function VersionsPanel({ workflowKey }: { workflowKey: string }) {
  const versions = useWorkflowVersions(workflowKey)
  const [open, setOpen] = useState<number | null>(null)
  const list: WorkflowVersion[] = versions.data?.versions ?? []
  return (
    <ol className="space-y-1" aria-label="Versions">
      {list.map((version, index) => {
        const previous = list[index + 1]
        return (
          <li key={version.version} className="rounded-md border">
            <button
              type="button"
              aria-expanded={open === version.version}
              onClick={() => setOpen(open === version.version ? null : version.version)}
              className="flex w-full cursor-pointer items-center gap-3 px-2 py-1 text-left text-sm hover:bg-muted"
            >
              <span className="w-8 font-mono text-xs">v{version.version}</span>
              <span className="flex-1 truncate">{version.change}</span>
              <span className="text-xs text-muted-foreground">{formatRelative(version.created_at)}</span>
            </button>
            {open === version.version && (
              <div className="border-t p-2">
                <VersionDiff before={previous?.definition} after={version.definition} />
              </div>
            )}
          </li>
        )
      })}
    </ol>
  )
}
