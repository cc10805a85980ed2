// The remembered "Chat as" labels: read back per agent whatever localStorage holds, and trimmed
// for sending.
import { chatAsKey, filledLabels, labelsLine, NOBODY, rememberedChatAs } from './chatAsLabels'

beforeEach(() => localStorage.clear())

describe('chat as labels', () => {
  it('reads back only string labels, and nothing from what is not JSON', () => {
    localStorage.setItem(chatAsKey('a'), JSON.stringify({ tenant: 'org:acme', actor: 42, subject: null }))
    expect(rememberedChatAs('a')).toEqual({ tenant: 'org:acme', actor: '', subject: '' })
    localStorage.setItem(chatAsKey('b'), '{not json')
    expect(rememberedChatAs('b')).toEqual(NOBODY)
    expect(rememberedChatAs('c')).toEqual(NOBODY)
  })

  it('sends the labels filled in, trimmed', () => {
    const labels = { tenant: ' org:acme ', actor: '  ', subject: 'case:7' }
    expect(filledLabels(labels)).toEqual({ tenant: 'org:acme', subject: 'case:7' })
    expect(labelsLine(labels)).toBe('org:acme · case:7')
    expect(filledLabels(NOBODY)).toEqual({})
  })
})
