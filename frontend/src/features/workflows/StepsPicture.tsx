// The picture of a workflow: the run's input, then each step in order with the values its message
// takes and where each comes from (the input, an earlier step), then the run's outputs.
import { ArrowDown } from '@/components/icons'
import { Badge } from '@/components/ui/badge'
import type { DefinitionView, MappingView } from './definition'

function Mapping({ mapping }: { mapping: MappingView }) {
  return (
    <li className="flex min-w-0 items-baseline gap-2 text-xs">
      <span className="font-mono font-medium">{mapping.field}</span>
      <span className="text-muted-foreground">←</span>
      <Badge variant={mapping.from === 'literal' ? 'outline' : mapping.from === 'input' ? 'secondary' : 'default'} title={mapping.value}>
        {mapping.from === 'literal' ? 'value' : mapping.from}
      </Badge>
      <span className="truncate font-mono text-muted-foreground">{mapping.value}</span>
    </li>
  )
}

export function StepsPicture({ view }: { view: DefinitionView }) {
  return (
    <ol className="flex flex-col items-stretch gap-1" aria-label="Steps">
      <li className="self-start rounded-md border border-dashed px-2 py-1 text-xs text-muted-foreground">the run's input</li>
      {view.steps.map((step, index) => (
        <li key={`${index}-${step.name}`} className="space-y-1" data-testid="workflow-step-box">
          <ArrowDown className="ml-3 size-3 text-muted-foreground" aria-hidden />
          <div className="rounded-lg border bg-card p-2">
            <p className="flex flex-wrap items-baseline gap-2 text-sm">
              <span className="font-mono text-xs text-muted-foreground">{index + 1}</span>
              <span className="font-medium">{step.name}</span>
              <span className="truncate font-mono text-xs text-muted-foreground">{step.agent}</span>
              {step.outputKey !== step.name && <span className="text-xs text-muted-foreground">→ {step.outputKey}</span>}
            </p>
            {step.mappings.length > 0 ? (
              <ul className="mt-1 space-y-0.5">
                {step.mappings.map((mapping) => (
                  <Mapping key={mapping.field} mapping={mapping} />
                ))}
              </ul>
            ) : (
              <p className="mt-1 text-xs text-muted-foreground">no input mapping: the run's input is its message</p>
            )}
          </div>
        </li>
      ))}
      {view.outputs.length > 0 && (
        <li className="space-y-1">
          <ArrowDown className="ml-3 size-3 text-muted-foreground" aria-hidden />
          <div className="rounded-lg border border-dashed p-2">
            <p className="text-xs text-muted-foreground">outputs</p>
            <ul className="mt-1 space-y-0.5">
              {view.outputs.map((mapping) => (
                <Mapping key={mapping.field} mapping={mapping} />
              ))}
            </ul>
          </div>
        </li>
      )}
    </ol>
  )
}
