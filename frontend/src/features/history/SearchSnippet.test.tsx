// The snippet's highlighting: marks exactly at the offsets, counted in code points, text never markup.
import { render, screen } from '@testing-library/react'
import { leadingUpTo, SearchSnippet, snippetParts } from './SearchSnippet'

const marks = () => Array.from(document.querySelectorAll('mark')).map((mark) => mark.textContent)

describe('SearchSnippet', () => {
  it('marks each match and keeps the rest as plain text', () => {
    render(<SearchSnippet text="…the Rare Needle and a rare needle…" matches={[[5, 16], [23, 34]]} />)
    expect(marks()).toEqual(['Rare Needle', 'rare needle'])
    expect(screen.getByTestId('search-snippet').textContent).toBe('…the Rare Needle and a rare needle…')
  })

  it('counts offsets in code points, as the API does', () => {
    render(<SearchSnippet text="🎉 une école" matches={[[6, 11]]} />)
    expect(marks()).toEqual(['école'])
  })

  it('renders markup in the text as text', () => {
    render(<SearchSnippet text="<b>bold</b> <img src=x>" matches={[[3, 7]]} />)
    expect(document.querySelector('b')).toBeNull()
    expect(document.querySelector('img')).toBeNull()
    expect(marks()).toEqual(['bold'])
  })

  it('ignores offsets that overlap or fall outside the text', () => {
    expect(snippetParts('abcdef', [[4, 9], [0, 2], [1, 3]])).toEqual([
      { text: 'ab', marked: true },
      { text: 'cdef', marked: false },
    ])
    expect(snippetParts('abc', [])).toEqual([{ text: 'abc', marked: false }])
  })
})

describe('a snippet kept in view', () => {
  it('keeps at most `lead` characters before the first match, and moves the offsets with the cut', () => {
    const text = 'a'.repeat(50) + 'Pomegranate' + ' tail'
    const { text: shown, matches } = leadingUpTo(text, [[50, 61]], 10)
    expect(shown).toBe('…' + 'a'.repeat(10) + 'Pomegranate tail')
    expect(Array.from(shown).slice(matches[0]![0], matches[0]![1]).join('')).toBe('Pomegranate')
    expect(leadingUpTo('short Pomegranate', [[6, 17]], 10)).toEqual({ text: 'short Pomegranate', matches: [[6, 17]] })
    expect(leadingUpTo('no match here', [], 3).text).toBe('no match here')
  })
})
