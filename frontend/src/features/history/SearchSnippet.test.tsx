// The snippet's highlighting: marks exactly at the offsets, counted in code points, text never markup.
import { render, screen } from '@testing-library/react'
import { SearchSnippet, snippetParts } from './SearchSnippet'

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
