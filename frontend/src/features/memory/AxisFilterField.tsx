// One axis of the browse filter: any value, only none (tenant-wide, everyone), or exactly one label.
import { box, Field } from '@/features/rules/Field'
import { cn } from '@/lib/cn'
import type { AxisDraft, AxisMode } from './filters'

export function AxisFilterField({
  label,
  choices,
  placeholder,
  value,
  error,
  onChange,
}: {
  label: string
  choices: Record<AxisMode, string>
  placeholder: string
  value: AxisDraft
  error?: string
  onChange: (value: AxisDraft) => void
}) {
  return (
    <Field label={label} error={error}>
      {(aria) => (
        <div className="flex min-w-0 gap-2">
          <select {...aria} value={value.mode} onChange={(event) => onChange({ ...value, mode: event.target.value as AxisMode })} className={cn(box, 'w-auto shrink-0')}>
            {(Object.keys(choices) as AxisMode[]).map((mode) => (
              <option key={mode} value={mode}>
                {choices[mode]}
              </option>
            ))}
          </select>
          {value.mode === 'exact' && (
            <input
              value={value.label}
              onChange={(event) => onChange({ ...value, label: event.target.value })}
              aria-label={`${label} label`}
              aria-invalid={error ? true : undefined}
              placeholder={placeholder}
              className={cn(box, 'font-mono')}
              autoComplete="off"
            />
          )}
        </div>
      )}
    </Field>
  )
}
