import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { JsonView } from './JsonView'

describe('JsonView (large values)', () => {
  it('cuts a long string and shows it whole on demand', async () => {
    const payload = JSON.stringify(Array.from({ length: 30_000 }, (_, i) => ({ id: i, path: 'src/**/*.py' })))
    const { container } = render(<JsonView value={payload} />)
    expect(container.textContent!.length).toBeLessThan(1000)
    await userEvent.click(screen.getByRole('button', { name: /show all .*KB/ }))
    expect(container.textContent).toContain(payload)
  })

  it('shows the first entries of a big array, more on demand', async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => ({ id: i }))
    const { container } = render(<JsonView value={rows} openDepth={1} />)
    const rowsShown = () => container.querySelectorAll('button[aria-expanded="false"]').length
    expect(rowsShown()).toBe(100)
    await userEvent.click(screen.getByText('… 4,900 more items, show 1,000'))
    expect(rowsShown()).toBe(1100)
    expect(screen.getByText('… 3,900 more items, show 1,000').tagName).toBe('BUTTON')
  })
})
