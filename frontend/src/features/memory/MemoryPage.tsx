// /memory — what the agents remember: browse a tenant's memories, search them as an agent would,
// see and forget what applies to one person and set their sharing choice, see and delete everything
// stored about a person in a tenant, list and forget vector memories, edit, forget or add one.
// The tab and the browse filter live in the URL (`?view=`, `?tenant=`…). Loaded on its own when
// first opened (App.tsx).
import { Plus } from '@/components/icons'
import { useSearchParams } from 'react-router'
import { PageHeader } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Tabs, TabsContent, TabsList, TabsTrigger } from '@/components/ui/tabs'
import { BrowseTab } from './BrowseTab'
import { MemoryActions, useMemoryActions } from './MemoryActions'
import { PersonDataTab } from './PersonDataTab'
import { PersonTab } from './PersonTab'
import { SearchTab } from './SearchTab'
import { StatusBanner } from './StatusBanner'
import { VectorMemoriesTab } from './VectorMemoriesTab'

const VIEWS = { browse: 'Browse', search: 'Search', person: 'A person', data: "Person's data", vectors: 'Vector memories' } as const
type View = keyof typeof VIEWS
const isView = (value: string | null): value is View => value !== null && value in VIEWS

function NewMemoryButton() {
  const { add } = useMemoryActions()
  return (
    <Button size="sm" onClick={add}>
      <Plus /> New memory
    </Button>
  )
}

export default function MemoryPage() {
  const [params, setParams] = useSearchParams()
  const view = params.get('view')
  const tab: View = isView(view) ? view : 'browse'
  const tenant = params.get('tenant') ?? ''
  const setTab = (next: string) =>
    setParams((current) => {
      const changed = new URLSearchParams(current)
      if (next === 'browse') changed.delete('view')
      else changed.set('view', next)
      return changed
    })

  return (
    <MemoryActions tenant={tenant}>
      <div className="flex h-full min-w-0 flex-col overflow-y-auto" data-testid="memory-page">
        <PageHeader
          title="Memory"
          description="What the agents remember: facts distilled from conversations, saved by tools or added by hand, shared with everyone or kept for one person."
          actions={<NewMemoryButton />}
        />
        <div className="grid min-w-0 gap-4 px-6 py-4">
          <StatusBanner />
          <Tabs value={tab} onValueChange={setTab} className="gap-4">
            <TabsList aria-label="Memory views" className="self-start">
              {(Object.keys(VIEWS) as View[]).map((name) => (
                <TabsTrigger key={name} value={name}>
                  {VIEWS[name]}
                </TabsTrigger>
              ))}
            </TabsList>
            <TabsContent value="browse">
              <BrowseTab />
            </TabsContent>
            <TabsContent value="search">
              <SearchTab tenant={tenant} />
            </TabsContent>
            <TabsContent value="person">
              <PersonTab />
            </TabsContent>
            <TabsContent value="data">
              <PersonDataTab />
            </TabsContent>
            <TabsContent value="vectors">
              <VectorMemoriesTab />
            </TabsContent>
          </Tabs>
        </div>
      </div>
    </MemoryActions>
  )
}
