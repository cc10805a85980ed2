import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { describe, expect, it } from 'vitest'
import type { JsonSchema } from '@/lib/api/types'
import { useDepsForm } from './DepsForm'
import { depsFields, valuesOf } from './depsFields'

const schema: JsonSchema = {
  type: 'object',
  required: ['account_id', 'plan'],
  properties: {
    account_id: { type: 'integer', title: 'Account', description: 'The customer account.' },
    region: { type: 'string' },
    ratio: { type: ['number', 'null'] },
    vip: { type: 'boolean' },
    plan: { enum: ['free', 'pro'] },
    address: { type: 'object' },
  },
}

function Harness({ stored, conversationId = 'c1' }: { stored: Record<string, unknown> | null; conversationId?: string }) {
  const deps = useDepsForm({ deps_schema: schema }, { id: conversationId, deps_values: stored }, false)
  const [sent, setSent] = useState<string>('')
  return (
    <>
      {deps.form}
      <button type="button" onClick={() => setSent(JSON.stringify(deps.values))}>
        Send
      </button>
      <output data-testid="sent">{sent}</output>
    </>
  )
}

describe('the deps form', () => {
  it('reads the fields a form can hold from the schema, required ones marked', () => {
    const fields = depsFields(schema)
    expect(fields.map((field) => [field.name, field.kind, field.required])).toEqual([
      ['account_id', 'integer', true],
      ['region', 'string', false],
      ['ratio', 'number', false],
      ['vip', 'boolean', false],
      ['plan', 'enum', true],
    ])
    expect(fields[0]).toMatchObject({ label: 'Account', description: 'The customer account.' })
    expect(depsFields({ type: 'object' })).toEqual([])
    expect(depsFields(null)).toEqual([])
  })

  it('sends typed values: numbers as numbers, an empty field left out, a bad number as typed', () => {
    const fields = depsFields(schema)
    expect(valuesOf({ account_id: '42', region: '', ratio: '0.5', vip: false, plan: '1' }, fields)).toEqual({
      account_id: 42,
      ratio: 0.5,
      vip: false,
      plan: 'pro',
    })
    expect(valuesOf({ account_id: '4x' }, fields)).toEqual({ account_id: '4x' })
  })

  it('starts from the conversation values and sends what was typed', async () => {
    render(<Harness stored={{ account_id: 7, plan: 'free', vip: true }} />)
    const account = screen.getByLabelText(/Account/)
    expect(account).toHaveValue(7)
    expect(account).toBeRequired()
    expect(screen.getByLabelText(/plan/)).toHaveValue('0')
    expect(screen.getByLabelText(/vip/)).toBeChecked()
    expect(screen.getByTestId('deps-form')).toHaveTextContent('*')
    await userEvent.clear(account)
    await userEvent.type(account, '12')
    await userEvent.type(screen.getByLabelText(/region/), 'eu')
    await userEvent.selectOptions(screen.getByLabelText(/plan/), 'pro')
    await userEvent.click(screen.getByRole('button', { name: 'Send' }))
    expect(JSON.parse(screen.getByTestId('sent').textContent ?? '')).toEqual({ account_id: 12, region: 'eu', vip: true, plan: 'pro' })
  })

  it('shows nothing for an agent without a deps schema', () => {
    function Plain() {
      const deps = useDepsForm({ deps_schema: null }, undefined, false)
      return <div data-testid="plain">{deps.form ?? 'none'}{String(deps.values)}</div>
    }
    render(<Plain />)
    expect(screen.getByTestId('plain')).toHaveTextContent('nonenull')
    expect(screen.queryByTestId('deps-form')).toBeNull()
  })
})
