// Test a provider: one tiny real request ("Say OK") to a model it serves. Shows ok and the
// duration, or the provider's own error text, verbatim.
import { CheckCircle2, XCircle } from '@/components/icons'
import { useState, type FormEvent } from 'react'
import { registry } from '@/lib/api/registry'
import type { Provider, ProviderTest as TestResult } from '@/lib/api/types'
import { formatDuration } from '@/lib/format'
import { useRegistry } from '@/lib/queries'
import { messageOf } from '@/components/common/States'
import { Button } from '@/components/ui/button'
import { Dialog, DialogDescription, DialogHeader, DialogTitle } from '@/components/ui/dialog'
import { Input } from '@/components/ui/input'

export function ProviderTestDialog({ provider, onClose }: { provider: Provider | null; onClose: () => void }) {
  return (
    <Dialog open={provider !== null} onOpenChange={(open) => !open && onClose()} label="Test provider" className="max-w-lg">
      {provider && <TestForm provider={provider} />}
    </Dialog>
  )
}

function TestForm({ provider }: { provider: Provider }) {
  const models = useRegistry('models')
  const known = (models.data ?? []).filter((model) => model.provider_key === provider.key)
  const [model, setModel] = useState(known[0]?.name ?? '')
  const [running, setRunning] = useState(false)
  const [result, setResult] = useState<TestResult | null>(null)
  const [failure, setFailure] = useState<string | null>(null)
  const run = async (event: FormEvent) => {
    event.preventDefault()
    if (!model.trim()) return
    setRunning(true)
    setResult(null)
    setFailure(null)
    try {
      setResult(await registry.test(provider.key, model.trim()))
    } catch (cause) {
      setFailure(messageOf(cause))
    } finally {
      setRunning(false)
    }
  }
  return (
    <form onSubmit={run} className="grid gap-4" aria-label="Test provider">
      <DialogHeader>
        <DialogTitle>Test {provider.name || provider.key}</DialogTitle>
        <DialogDescription>Sends one tiny request ("Say OK", at most 5 tokens) through this provider.</DialogDescription>
      </DialogHeader>
      <div className="flex gap-2">
        <Input aria-label="Model at the provider" placeholder="gpt-5-mini" value={model} onChange={(event) => setModel(event.target.value)} list="provider-test-models" autoFocus />
        <datalist id="provider-test-models">
          {known.map((m) => (
            <option key={m.key} value={m.name} />
          ))}
        </datalist>
        <Button type="submit" disabled={running || !model.trim()}>
          {running ? 'Testing…' : 'Run test'}
        </Button>
      </div>
      <div aria-live="polite" data-testid="provider-test-result">
        {result?.ok && (
          <p className="flex items-center gap-1.5 text-sm text-success">
            <CheckCircle2 className="size-4" /> OK: {result.model} answered in {formatDuration(result.duration_ms)}
          </p>
        )}
        {result && !result.ok && (
          <div className="grid gap-1.5">
            <p className="flex items-center gap-1.5 text-sm text-destructive">
              <XCircle className="size-4" /> Failed after {formatDuration(result.duration_ms)}
              {result.error?.class && <span className="font-mono text-xs">{result.error.class}</span>}
            </p>
            <pre className="max-h-64 overflow-auto whitespace-pre-wrap break-words rounded-md border bg-muted/40 p-3 font-mono text-xs">{result.error?.message ?? 'No error message.'}</pre>
          </div>
        )}
        {failure && (
          <p role="alert" className="text-sm text-destructive">
            {failure}
          </p>
        )}
      </div>
    </form>
  )
}
