// A dataset version's cases: the message each sends, what it expects, its evaluators in
// pydantic-evals' own form, and the conversation a saved turn came from.
import { Link } from 'react-router'
import { Badge } from '@/components/ui/badge'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { conversationPath } from '@/features/conversations/paths'

type Case = Record<string, unknown>

/** An evaluator as pydantic-evals writes it: `Name`, `{Name: arg}` or `{Name: {...}}`; its name. */
export function evaluatorName(spec: unknown): string {
  if (typeof spec === 'string') return spec
  if (spec && typeof spec === 'object') return Object.keys(spec)[0] ?? '?'
  return '?'
}

function text(value: unknown): string {
  if (value === undefined || value === null) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}

function Source({ metadata }: { metadata: unknown }) {
  const source = (metadata as { source?: { conversation_id?: string; agent_key?: string } } | undefined)?.source
  if (!source?.conversation_id || !source.agent_key) return <span className="text-muted-foreground">by hand</span>
  return (
    <Link to={conversationPath(source.agent_key, source.conversation_id)} className="text-primary hover:underline">
      saved turn
    </Link>
  )
}

export function CasesTable({ cases }: { cases: Case[] }) {
  return (
    <Table aria-label="Cases">
      <TableHeader>
        <TableRow>
          <TableHead>Case</TableHead>
          <TableHead>Message</TableHead>
          <TableHead>Expected</TableHead>
          <TableHead>Evaluators</TableHead>
          <TableHead>From</TableHead>
        </TableRow>
      </TableHeader>
      <TableBody>
        {cases.map((entry) => {
          const inputs = (entry.inputs ?? {}) as { message?: unknown; history?: unknown[]; attachments?: { name: string }[] }
          const evaluators = Array.isArray(entry.evaluators) ? entry.evaluators : []
          const reference = (entry.metadata as { reference?: unknown } | undefined)?.reference
          return (
            <TableRow key={text(entry.name)} data-testid="eval-case-row">
              <TableCell className="max-w-48 truncate font-medium">{text(entry.name)}</TableCell>
              <TableCell className="max-w-72">
                <span className="line-clamp-2">{text(inputs.message)}</span>
                {Array.isArray(inputs.attachments) && inputs.attachments.length > 0 && (
                  <span className="block text-xs text-muted-foreground">with {inputs.attachments.map((file) => file.name).join(', ')}</span>
                )}
                {Array.isArray(inputs.history) && inputs.history.length > 0 && (
                  <span className="text-xs text-muted-foreground">after {inputs.history.length} earlier messages</span>
                )}
              </TableCell>
              <TableCell className="max-w-72">
                <span className="line-clamp-2">{text(entry.expected_output)}</span>
                {reference !== undefined && <span className="text-xs text-muted-foreground">reference kept for a judge</span>}
              </TableCell>
              <TableCell>
                <div className="flex flex-wrap gap-1">
                  {evaluators.map((spec, index) => (
                    <Badge key={index} variant="mono" title={JSON.stringify(spec)}>
                      {evaluatorName(spec)}
                    </Badge>
                  ))}
                  {evaluators.length === 0 && <span className="text-xs text-muted-foreground">the dataset's</span>}
                </div>
              </TableCell>
              <TableCell className="text-xs">
                <Source metadata={entry.metadata} />
              </TableCell>
            </TableRow>
          )
        })}
      </TableBody>
    </Table>
  )
}
