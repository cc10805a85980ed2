// /registry/:kind — what is configured in the database: a tab per kind, and the settings.
import { useNavigate, useParams, useSearchParams } from 'react-router'
import { ENTRY_KINDS, SANDBOXED, type EntryKind } from '@/lib/api/registry'
import { PageHeader } from '@/components/common/States'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { KindTab } from './KindTab'
import { SettingsTab } from './SettingsTab'

const TABS = [...ENTRY_KINDS, 'settings'] as const
type Tab = (typeof TABS)[number]

const isTab = (value: string): value is Tab => (TABS as readonly string[]).includes(value)
const title = (tab: string) => tab[0]!.toUpperCase() + tab.slice(1)

export function RegistryPage() {
  const { kind = 'providers' } = useParams()
  const [params] = useSearchParams()
  const navigate = useNavigate()
  const tab: Tab = isTab(kind) ? kind : 'providers'
  const open = (next: string) => {
    // The sandbox toggle carries over between the kinds that have sandboxes.
    const keep = SANDBOXED.includes(next as EntryKind) && params.get('sandbox') ? '?sandbox=include' : ''
    navigate(`/registry/${next}${keep}`)
  }
  return (
    <div className="h-full overflow-y-auto">
      <PageHeader
        title="Registry"
        description="Providers, models, presets, tones and agents kept in the database, and the settings stored beside them."
      />
      <Tabs value={tab} onValueChange={open} className="gap-4 p-6">
        <TabsList aria-label="Kinds" className="max-w-full self-start max-sm:h-auto max-sm:flex-wrap">
          {TABS.map((name) => (
            <TabsTrigger key={name} value={name}>
              {title(name)}
            </TabsTrigger>
          ))}
        </TabsList>
        <TabsContent value={tab}>{tab === 'settings' ? <SettingsTab /> : <KindTab key={tab} kind={tab} />}</TabsContent>
      </Tabs>
    </div>
  )
}
