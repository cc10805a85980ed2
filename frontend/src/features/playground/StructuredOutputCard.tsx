import { Braces } from '@/components/icons'
import { JsonView } from '@/components/json/JsonView'

export function StructuredOutputCard({ output }: { output: unknown }) {
  return (
    <div className="rounded-lg border bg-card" data-testid="structured-output">
      <div className="flex items-center gap-2 border-b px-3 py-2 text-xs font-medium text-muted-foreground">
        <Braces className="size-3.5 text-primary" /> Structured output
      </div>
      <div className="p-2">
        <JsonView value={output} openDepth={3} className="border-0 bg-transparent" />
      </div>
    </div>
  )
}
