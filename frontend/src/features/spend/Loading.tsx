// What a panel shows before its data: a placeholder while it loads, the error when it failed.
import type { ResourceState } from '@/lib/resource'
import { ErrorState } from '@/components/common/States'
import { Skeleton } from '@/components/ui/skeleton'

export function Loading({ resource }: { resource: ResourceState<unknown> & { reload: () => void } }) {
  if (resource.data !== undefined) return null
  if (resource.error !== undefined) return <ErrorState error={resource.error} retry={resource.reload} />
  return <Skeleton className="h-40" />
}
