// The rules by tenant, then subject (the whole tenant first): within each, shared rules before
// personal ones, in the order a prompt gets them.
import type { Rule } from './api'
import { groupRules, orderedWith } from './order'
import { RuleRow } from './RuleRow'

export function RuleGroups({ rules, onEdit, onDelete }: { rules: Rule[]; onEdit: (rule: Rule) => void; onDelete: (rule: Rule) => void }) {
  return (
    <div className="space-y-6">
      {groupRules(rules).map(({ tenant, subjects }) => (
        <section key={tenant} aria-label={`Rules of ${tenant}`} className="space-y-3" data-testid="rules-tenant">
          <h2 className="font-mono text-sm font-semibold">{tenant}</h2>
          {subjects.map(({ subject, rules: those }) => (
            <section key={subject ?? ''} aria-label={`${tenant}, ${subject ?? 'whole tenant'}`} className="space-y-2" data-testid="rules-scope">
              <h3 className="text-xs font-medium text-muted-foreground">{subject === null ? 'Whole tenant' : <span className="font-mono">{subject}</span>}</h3>
              <ul className="space-y-2">
                {those.map((rule) => {
                  const list = orderedWith(those, rule)
                  return <RuleRow key={rule.id} rule={rule} list={list} index={list.indexOf(rule)} onEdit={() => onEdit(rule)} onDelete={() => onDelete(rule)} />
                })}
              </ul>
            </section>
          ))}
        </section>
      ))}
    </div>
  )
}
