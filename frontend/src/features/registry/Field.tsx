// One form field of a registry entry, drawn from its FieldSpec: the control, then its hint or
// its error (described-by the control, so a screen reader reads the error with the field).
import { useId, type ReactNode } from 'react'
import type { Option } from '@/components/ui/multi-select'
import { Input } from '@/components/ui/input'
import { cn } from '@/lib/cn'
import { jsonObjectError, type FieldSpec, type FormValue, type SecretValue } from './form'
import { SecretField } from './SecretField'
import { ToolsField } from './ToolsField'

export type Choices = Partial<Record<NonNullable<FieldSpec['choices']>, Option[]>>

const box = 'w-full rounded-md border border-input bg-transparent px-3 py-2 text-sm focus-visible:outline-2 focus-visible:outline-ring'

export function Field({
  field,
  value,
  error,
  onChange,
  choices,
  editing,
  secret,
}: {
  field: FieldSpec
  value: FormValue
  error?: string
  onChange: (value: FormValue) => void
  choices: Choices
  editing: boolean
  secret?: { set: boolean; last4: string | null }
}) {
  const id = useId()
  const note = `${id}-note`
  const shownError = error ?? (field.type === 'json' ? jsonObjectError(value as string) : null)
  const aria = { id, 'aria-invalid': shownError ? true : undefined, 'aria-describedby': shownError || field.hint ? note : undefined }
  const options = field.choices ? (choices[field.choices] ?? []) : []
  if (field.type === 'bool')
    return (
      <div className="flex items-start gap-2">
        <input type="checkbox" className="mt-0.5 size-4 accent-[var(--primary)]" checked={value as boolean} onChange={(event) => onChange(event.target.checked)} {...aria} />
        <label htmlFor={id} className="grid gap-0.5 text-sm">
          {field.label}
          {(shownError || field.hint) && (
            <span id={note} className={cn('text-xs', shownError ? 'text-destructive' : 'text-muted-foreground')}>
              {shownError ?? field.hint}
            </span>
          )}
        </label>
      </div>
    )
  let control: ReactNode
  if (field.type === 'secret') {
    control = <SecretField value={value as SecretValue} onChange={onChange} secret={editing ? secret : undefined} inputProps={aria} />
  } else if (field.type === 'tools') {
    control = <ToolsField value={value as string[]} onChange={onChange} options={options} inputProps={aria} />
  } else if (field.type === 'select') {
    control = (
      <select className={cn(box, 'h-9 py-0')} value={value as string} onChange={(event) => onChange(event.target.value)} {...aria}>
        {!field.required && <option value="">None</option>}
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
        {(value as string) && !options.some((option) => option.value === value) && <option value={value as string}>{value as string}</option>}
      </select>
    )
  } else if (field.type === 'textarea' || field.type === 'json') {
    control = (
      <textarea
        className={cn(box, 'min-h-24 resize-y', field.type === 'json' && 'font-mono text-xs')}
        rows={field.type === 'json' ? 3 : 5}
        spellCheck={field.type !== 'json'}
        placeholder={field.placeholder}
        value={value as string}
        onChange={(event) => onChange(event.target.value)}
        {...aria}
      />
    )
  } else {
    const list = options.length ? `${id}-list` : undefined
    control = (
      <>
        <Input
          type={field.type === 'datetime' ? 'datetime-local' : 'text'}
          inputMode={field.type === 'number' || field.type === 'decimal' ? 'decimal' : field.type === 'integer' ? 'numeric' : undefined}
          value={value as string}
          onChange={(event) => onChange(event.target.value)}
          readOnly={field.createOnly && editing}
          className={cn(field.createOnly && editing && 'bg-muted/50 text-muted-foreground', field.name === 'key' && 'font-mono')}
          placeholder={field.placeholder}
          list={list}
          autoComplete="off"
          {...aria}
        />
        {list && (
          <datalist id={list}>
            {options.map((option) => (
              <option key={option.value} value={option.value}>
                {option.hint}
              </option>
            ))}
          </datalist>
        )}
      </>
    )
  }
  return (
    <div className="grid content-start gap-1.5">
      <label htmlFor={id} className="text-[13px] font-medium">
        {field.label}
        {field.required && !(field.createOnly && editing) && <span className="text-muted-foreground"> *</span>}
      </label>
      {control}
      {(shownError || field.hint) && (
        <p id={note} className={cn('text-xs', shownError ? 'text-destructive' : 'text-muted-foreground')} data-testid={shownError ? 'field-error' : undefined}>
          {shownError ?? field.hint}
        </p>
      )}
    </div>
  )
}
