// /rules — what people told the agents, by tenant and subject: add, edit, reorder, pause and delete
// rules, and preview the block a conversation of one scope gets at the top of its prompt. The tenant
// filter lives in the URL (`?tenant=`). Loaded on its own when first opened (App.tsx).
import { Plus, ScrollText } from '@/components/icons'
import { useState } from 'react'
import { useSearchParams } from 'react-router'
import { EmptyState, PageHeader } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { ConfirmDialog } from '@/features/conversations/ConfirmDialog'
import { Loading } from '@/features/spend/Loading'
import { invalidate } from '@/lib/resource'
import { rulesApi, type Rule } from './api'
import { PreviewPanel } from './PreviewPanel'
import { useRules } from './queries'
import { RuleDialog } from './RuleDialog'
import { RuleGroups } from './RuleGroups'

function TenantFilter({ tenant, onChange }: { tenant: string; onChange: (tenant: string) => void }) {
  const apply = (value: string) => value.trim() !== tenant && onChange(value.trim())
  return (
    <input
      // A new value in the URL (back, a link) replaces what was typed.
      key={tenant}
      defaultValue={tenant}
      onBlur={(event) => apply(event.target.value)}
      onKeyDown={(event) => event.key === 'Enter' && apply(event.currentTarget.value)}
      placeholder="Tenant (type:id)"
      aria-label="Filter by tenant"
      maxLength={511}
      className="h-8 w-56 rounded-md border bg-transparent px-2 font-mono text-xs focus-visible:outline-2 focus-visible:outline-ring data-[on=true]:border-primary/60"
      data-on={tenant !== ''}
    />
  )
}

function NoRules({ tenant, onNew }: { tenant: string; onNew: () => void }) {
  return (
    <EmptyState icon={<ScrollText />} title={tenant ? `No rules for ${tenant}` : 'No rules yet'}>
      <p>
        A rule is an instruction a person writes for a tenant, such as never quoting fees over chat. Every conversation of that tenant whose agent
        has the <code className="font-mono">Rules()</code> capability gets it at the top of its prompt, before any other instruction.
      </p>
      <p>Add one here or from the command line:</p>
      <code className="block rounded-md bg-muted/60 px-3 py-2 font-mono text-xs text-foreground">
        synapse rules add "Never quote fees over chat." --tenant {tenant || 'firm:7'}
      </code>
      <Button size="sm" onClick={onNew}>
        <Plus /> New rule
      </Button>
    </EmptyState>
  )
}

export default function RulesPage() {
  const [params, setParams] = useSearchParams()
  const tenant = params.get('tenant') ?? ''
  const rules = useRules(tenant)
  const [editing, setEditing] = useState<Rule | null | undefined>(undefined)
  const [deleting, setDeleting] = useState<Rule | null>(null)
  const setTenant = (next: string) => setParams(next ? { tenant: next } : {})
  const list = rules.data?.rules
  return (
    <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="rules-page">
      <PageHeader
        title="Rules"
        description="What people told the agents: shared rules every conversation of a scope must follow, and one person's preferences."
        actions={
          <Button size="sm" onClick={() => setEditing(null)}>
            <Plus /> New rule
          </Button>
        }
      />
      <div className="grid min-w-0 gap-6 px-6 py-4 lg:grid-cols-[minmax(0,1fr)_22rem] lg:items-start">
        <section aria-label="Rules" className="min-w-0 space-y-3">
          <div role="search" className="flex items-center gap-2">
            <TenantFilter tenant={tenant} onChange={setTenant} />
          </div>
          <Loading resource={rules} />
          {list?.length === 0 && <NoRules tenant={tenant} onNew={() => setEditing(null)} />}
          {list && list.length > 0 && <RuleGroups rules={list} onEdit={setEditing} onDelete={setDeleting} />}
        </section>
        <PreviewPanel tenant={tenant} />
      </div>
      <RuleDialog open={editing !== undefined} rule={editing ?? null} tenant={tenant} onClose={() => setEditing(undefined)} />
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title="Delete this rule?"
        description={deleting ? `"${deleting.text}" stops reaching the prompts of ${deleting.tenant}; pause it instead to stop it for a while.` : ''}
        confirmLabel="Delete"
        onConfirm={async () => {
          await rulesApi.remove(deleting!.id)
          invalidate('rules:')
        }}
      />
    </div>
  )
}
