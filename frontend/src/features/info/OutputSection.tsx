// What the agent's model is asked to produce: the output type and mode, the output tools exactly as
// pydantic-ai offers them (names, the function each calls, argument schemas), the function a text
// answer goes through, the output validators, and the output schema. An output type that also lists
// DeferredToolRequests shows the answer's type and schema with the note that a run may pause.
import type { AgentInfo } from '@/lib/api/types'
import { Badge } from '@/components/ui/badge'
import { ParamTable } from './ParamTable'
import { InfoSection } from './Section'

type Output = AgentInfo['output']

/** Whether there is more to show than a plain text answer. */
export function hasOutputDetails(agent: AgentInfo): boolean {
  const output = agent.output
  return Boolean(
    agent.structured_output || output.schema || output.tools.length || output.validators.length || output.text_function || output.deferred,
  )
}

export function OutputSection({ output }: { output: Output }) {
  return (
    <InfoSection title="Output">
      <p className="font-mono text-xs">
        {output.type}
        {output.mode && <span className="text-muted-foreground"> · {output.mode} mode</span>}
      </p>
      {output.deferred && (
        <p className="text-xs text-muted-foreground" data-testid="output-deferred">
          {output.deferred}
        </p>
      )}
      {output.text_function && (
        <p className="text-xs text-muted-foreground">
          The text answer is passed to <span className="font-mono text-foreground">{output.text_function}</span>.
        </p>
      )}
      {output.tools.length > 0 && (
        <ul className="space-y-2" aria-label="Output tools">
          {output.tools.map((tool) => (
            <li key={tool.name} className="space-y-1.5 rounded-md border p-2.5" data-testid="output-tool">
              <div className="flex flex-wrap items-center gap-1.5">
                <span className="min-w-0 flex-1 truncate font-mono text-[13px] font-medium">{tool.name}</span>
                <Badge variant="secondary">output</Badge>
                {tool.function && <Badge variant="outline">calls {tool.function}</Badge>}
              </div>
              {tool.description && <p className="whitespace-pre-line text-xs text-muted-foreground">{tool.description}</p>}
              <ParamTable schema={tool.parameters} label="Arguments" />
            </li>
          ))}
        </ul>
      )}
      {output.validators.length > 0 && (
        <div className="space-y-1">
          <p className="text-[11px] font-medium uppercase tracking-wider text-muted-foreground">Validators {output.validators.length}</p>
          <ul className="divide-y rounded-md border text-xs" aria-label="Output validators">
            {output.validators.map((validator, i) => (
              <li key={`${validator.name}-${i}`} className="flex items-center gap-2 px-2.5 py-1.5" data-testid="output-validator">
                <span className="min-w-0 flex-1 truncate font-mono">{validator.name}</span>
                {validator.takes_ctx && <Badge variant="outline">ctx</Badge>}
                {validator.location && <span className="font-mono text-[11px] text-muted-foreground">{validator.location}</span>}
              </li>
            ))}
          </ul>
        </div>
      )}
      {output.schema && output.tools.length === 0 && <ParamTable schema={output.schema} label="Fields" />}
    </InfoSection>
  )
}
