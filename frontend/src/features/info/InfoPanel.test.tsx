// The info panel as a phone's full-screen sheet: it takes the focus when it opens, Esc closes it,
// and the focus goes back to what opened it. On a wider window it leaves the focus alone.
import { fireEvent, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { InfoPanel } from './InfoPanel'

function stubWidth(width: number) {
  vi.stubGlobal('matchMedia', (query: string) => {
    const min = /min-width:\s*([\d.]+)rem/.exec(query)
    return { matches: min ? width >= Number(min[1]) * 16 : false, media: query, addEventListener: () => {}, removeEventListener: () => {} }
  })
}

function Page() {
  const [open, setOpen] = useState(false)
  return (
    <>
      <button type="button" onClick={() => setOpen(!open)}>
        Agent info
      </button>
      {open && <InfoPanel agent={undefined} error={undefined} tab="prompt" onTab={() => {}} onClose={() => setOpen(false)} reload={() => {}} />}
    </>
  )
}

afterEach(() => vi.unstubAllGlobals())

describe('InfoPanel', () => {
  it('on a phone: takes the focus, closes on Esc and gives the focus back', async () => {
    stubWidth(390)
    render(<Page />)
    const opener = screen.getByRole('button', { name: 'Agent info' })
    await userEvent.click(opener)
    expect(screen.getByRole('tab', { name: 'Prompt' })).toHaveFocus()
    await userEvent.keyboard('{Escape}')
    expect(screen.queryByTestId('info-panel')).not.toBeInTheDocument()
    expect(opener).toHaveFocus()

    await userEvent.click(opener)
    await userEvent.click(screen.getByRole('button', { name: 'Close agent info' }))
    expect(screen.queryByTestId('info-panel')).not.toBeInTheDocument()
    expect(opener).toHaveFocus()
  })

  it('beside the thread on a desktop: the focus stays where it was; Esc inside it still closes it', async () => {
    stubWidth(1280)
    render(<Page />)
    const opener = screen.getByRole('button', { name: 'Agent info' })
    await userEvent.click(opener)
    expect(opener).toHaveFocus()
    // A key something inside already handled is left alone.
    const tab = screen.getByRole('tab', { name: 'Config' })
    tab.addEventListener('keydown', (event) => event.preventDefault())
    fireEvent.keyDown(tab, { key: 'Escape' })
    expect(screen.getByTestId('info-panel')).toBeInTheDocument()
    fireEvent.keyDown(screen.getByRole('tab', { name: 'Prompt' }), { key: 'Escape' })
    expect(screen.queryByTestId('info-panel')).not.toBeInTheDocument()
  })
})
