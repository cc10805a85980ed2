// A model's prices per million tokens, newest first, the one in force marked; "Add price" adds one.
import { Plus } from '@/components/icons'
import { useState, type FormEvent } from 'react'
import { registry } from '@/lib/api/registry'
import type { RegistryModel } from '@/lib/api/types'
import { formatDateTime } from '@/lib/format'
import { invalidate } from '@/lib/resource'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from '@/components/ui/table'
import { Field } from './Field'
import { placeErrors, PRICE_FIELDS, toBody, toForm, type FieldErrors } from './form'
import { formatAmount, formatPrice } from './price'

export function ModelPrices({ model }: { model: RegistryModel }) {
  const [adding, setAdding] = useState(false)
  const prices = [...model.prices].sort((a, b) => b.valid_from.localeCompare(a.valid_from))
  const amount = (value: string | null, currency: string) => (value === null ? '—' : formatAmount(value, currency))
  return (
    <section aria-label="Prices" className="grid gap-2 border-t pt-4">
      <div className="flex items-center justify-between gap-2">
        <h3 className="text-sm font-semibold">Prices per million tokens</h3>
        <span className="text-xs text-muted-foreground" data-testid="current-price">
          Now: {formatPrice(model.price)}
        </span>
      </div>
      {prices.length > 0 && (
        <div className="rounded-md border">
          <Table aria-label="Price history">
            <TableHeader>
              <TableRow className="hover:bg-transparent">
                <TableHead>Valid from</TableHead>
                <TableHead className="text-right">Input</TableHead>
                <TableHead className="text-right">Output</TableHead>
                <TableHead className="text-right">Cache read</TableHead>
                <TableHead className="text-right">Cache write</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody className="font-mono text-xs">
              {prices.map((price) => (
                <TableRow key={price.valid_from}>
                  <TableCell>
                    {formatDateTime(price.valid_from)}
                    {model.price?.valid_from === price.valid_from && (
                      <Badge variant="success" className="ml-2 font-sans">
                        in force
                      </Badge>
                    )}
                  </TableCell>
                  <TableCell className="text-right">{amount(price.input_per_mtok, price.currency)}</TableCell>
                  <TableCell className="text-right">{amount(price.output_per_mtok, price.currency)}</TableCell>
                  <TableCell className="text-right">{amount(price.cache_read_per_mtok, price.currency)}</TableCell>
                  <TableCell className="text-right">{amount(price.cache_write_per_mtok, price.currency)}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </div>
      )}
      {adding ? (
        <PriceForm modelKey={model.key} done={() => setAdding(false)} />
      ) : (
        <Button variant="outline" size="sm" className="justify-self-start" onClick={() => setAdding(true)}>
          <Plus /> Add price
        </Button>
      )}
    </section>
  )
}

function PriceForm({ modelKey, done }: { modelKey: string; done: () => void }) {
  const [values, setValues] = useState(() => toForm(PRICE_FIELDS, null))
  const [errors, setErrors] = useState<FieldErrors>({})
  const [message, setMessage] = useState<string | null>(null)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const draft = toBody(PRICE_FIELDS, values, true)
    setErrors(draft.errors)
    setMessage(null)
    if (Object.keys(draft.errors).length) return
    try {
      await registry.addPrice(modelKey, draft.body)
      invalidate('registry:models')
      done()
    } catch (cause) {
      const placed = placeErrors(cause, PRICE_FIELDS.map((field) => field.name))
      setErrors(placed.fields)
      setMessage(placed.message)
    }
  }
  return (
    <form onSubmit={submit} aria-label="Add price" className="grid gap-3 rounded-md border p-3" noValidate>
      <div className="grid gap-3 sm:grid-cols-3">
        {PRICE_FIELDS.map((field) => (
          <Field
            key={field.name}
            field={field}
            value={values[field.name] ?? ''}
            error={errors[field.name]}
            onChange={(value) => setValues((current) => ({ ...current, [field.name]: value }))}
            choices={{}}
            editing={false}
          />
        ))}
      </div>
      {message && (
        <p role="alert" className="text-xs text-destructive">
          {message}
        </p>
      )}
      <div className="flex justify-end gap-2">
        <Button variant="ghost" size="sm" onClick={done}>
          Cancel
        </Button>
        <Button type="submit" size="sm">
          Add price
        </Button>
      </div>
    </form>
  )
}
