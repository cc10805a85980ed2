// The files the last runs could not index, each with why (unreadable, too large, unreachable):
// the rest of the source was indexed without them.
import { FileWarning } from '@/components/icons'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { Loading } from '@/features/spend/Loading'
import { formatBytes, plural } from '@/lib/format'
import { useFailedFiles } from './queries'

export function FailedFiles({ slug }: { slug: string }) {
  const files = useFailedFiles(slug)
  const list = files.data?.files
  return (
    <section className="space-y-2" aria-label="Failed files">
      <h2 className="flex items-center gap-2 text-sm font-semibold">
        <FileWarning className="size-4 text-destructive" />
        Failed files
        {list && list.length > 0 && <span className="font-normal text-muted-foreground">{plural(list.length, 'file')}</span>}
      </h2>
      <Loading resource={files} />
      {list?.length === 0 && <p className="text-sm text-muted-foreground">None: every file was indexed.</p>}
      {list && list.length > 0 && (
        <Table aria-label="Failed files">
          <TableHeader>
            <TableRow>
              <TableHead>File</TableHead>
              <TableHead>Error</TableHead>
              <TableHead className="text-right">Size</TableHead>
            </TableRow>
          </TableHeader>
          <TableBody>
            {list.map((file) => (
              <TableRow key={file.identifier} data-testid="failed-file">
                <TableCell className="max-w-72 truncate font-mono text-xs" title={file.identifier}>
                  {file.identifier}
                </TableCell>
                <TableCell className="whitespace-pre-wrap break-words text-xs text-destructive">{file.error ?? 'Failed.'}</TableCell>
                <TableCell className="text-right font-mono text-xs">{formatBytes(file.size)}</TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </section>
  )
}
