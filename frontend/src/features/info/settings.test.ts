import { describe, expect, it } from 'vitest'
import { settingRows } from './settings'

describe('settingRows', () => {
  it('shows the common settings an agent leaves unset as the provider default', () => {
    expect(settingRows(null)).toEqual([
      ['temperature', 'provider default'],
      ['max_tokens', 'provider default'],
      ['top_p', 'provider default'],
    ])
  })

  it('keeps what the agent sets, in its order, and only fills in what is missing', () => {
    expect(settingRows({ max_tokens: 512, seed: 7, stop_sequences: ['END'], temperature: null })).toEqual([
      ['max_tokens', '512'],
      ['seed', '7'],
      ['stop_sequences', '["END"]'],
      ['temperature', 'provider default'],
      ['top_p', 'provider default'],
    ])
  })
})
