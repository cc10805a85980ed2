import { act, render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { Markdown, safeUrl } from './Markdown'

const html = (text: string) => render(<Markdown text={text} />).container.innerHTML

describe('Markdown (untrusted model text)', () => {
  it('renders the usual markdown', () => {
    const out = html('# Title\n\n**bold** and `code`\n\n- one\n- two\n\n```\nblock\n```')
    expect(out).toContain('<h1>Title</h1>')
    expect(out).toContain('<strong>bold</strong>')
    expect(out).toContain('<code>code</code>')
    expect(out).toContain('<li>two</li>')
    expect(out).toContain('<pre><code>block\n</code></pre>')
  })

  it('never renders raw HTML', () => {
    const out = html('hi <script>alert(1)</script> <img src=x onerror="alert(2)"> <b onclick="x()">b</b>')
    expect(out).not.toMatch(/<script|<img|onerror|onclick|<b>/)
  })

  it('keeps http(s) and mailto links, opened without an opener', () => {
    const out = html('[site](https://example.com) [mail](mailto:a@b.c)')
    expect(out).toContain('href="https://example.com"')
    expect(out).toContain('href="mailto:a@b.c"')
    expect(out).toContain('rel="noopener noreferrer"')
    expect(out).toContain('target="_blank"')
  })

  it('drops javascript:, data: and other schemes', () => {
    const out = html('[x](javascript:alert(1)) [y](data:text/html,hi) [z](vbscript:msgbox)')
    expect(out).not.toMatch(/javascript:|data:text|vbscript:/)
    expect(safeUrl('JaVaScRiPt:alert(1)')).toBe('')
    expect(safeUrl('//evil.example/x')).toBe('')
    expect(safeUrl('/api/attachments/1/0')).toBe('/api/attachments/1/0')
  })

  it('shows images as links instead of loading them', () => {
    const out = html('![tracker](https://evil.example/pixel.png)')
    expect(out).not.toContain('<img')
    expect(out).toContain('href="https://evil.example/pixel.png"')
  })
})

describe('Markdown (long output)', () => {
  const run = (n: number) => 'QUJDRA=='.repeat(Math.ceil(n / 8)).slice(0, n)

  it('cuts a long unbroken run and shows it whole on demand', async () => {
    const payload = run(1_000_000)
    const { container } = render(<Markdown text={`Here:\n\n${payload}\n\nDone.`} />)
    expect(container.textContent!.length).toBeLessThan(2000)
    expect(container).toHaveTextContent('Done.')
    const button = screen.getByRole('button', { name: 'show all 977 KB' })
    await userEvent.click(button)
    expect(container.querySelectorAll('p')[1]!.textContent).toBe(payload + 'show less')
    await userEvent.click(screen.getByRole('button', { name: 'show less' }))
    expect(container.textContent!.length).toBeLessThan(2000)
  })

  it('cuts runs inside code blocks and inline code too', () => {
    const { container } = render(<Markdown text={'```json\n' + run(50_000) + '\n```\n\nand `' + run(5000) + '`'} />)
    expect(container.querySelector('pre code')!.textContent!.length).toBeLessThan(400)
    expect(screen.getAllByRole('button', { name: /^show all/ })).toHaveLength(2)
  })

  it('still never renders raw HTML in a cut answer', () => {
    const out = html(`<img src=x onerror="alert(1)"> ${run(10_000)} <script>alert(2)</script>\n\n` + 'word '.repeat(10_000) + '<b>x</b>')
    expect(out).not.toMatch(/<script|<img|onerror|<b>/)
  })

  it('renders only the first slice of a very long answer, the rest on demand', async () => {
    const paragraphs = Array.from({ length: 3000 }, (_, i) => `Paragraph **${i}** with some words.`).join('\n\n')
    const { container } = render(<Markdown text={paragraphs} />)
    const shown = () => container.querySelectorAll('strong').length
    const first = shown()
    expect(first).toBeGreaterThan(100)
    expect(first).toBeLessThan(3000)
    expect(screen.getByTestId('more-output')).toHaveTextContent('more not shown')
    await userEvent.click(screen.getByRole('button', { name: 'Show more' }))
    expect(shown()).toBeGreaterThan(first)
    await userEvent.click(screen.getByRole('button', { name: 'Show all as text' }))
    const rest = screen.getByTestId('plain-rest')
    expect(rest.textContent!.endsWith('Paragraph **2999** with some words.')).toBe(true)
    expect(container.textContent).toContain('Paragraph **1500** with some words.')
  })

  it('shows a cut run in the plain rest in full', async () => {
    const payload = run(30_000)
    const text = 'word '.repeat(5000) + '\n\n' + 'more '.repeat(5000) + '\n\n' + payload
    render(<Markdown text={text} />)
    await userEvent.click(screen.getByRole('button', { name: 'Show all as text' }))
    expect(screen.getByTestId('plain-rest').textContent!.endsWith(payload)).toBe(true)
  })

  it('re-renders a streaming answer at most every interval, and at once when it ends', async () => {
    vi.useFakeTimers()
    try {
      const { container, rerender } = render(<Markdown text="a" streaming />)
      rerender(<Markdown text="ab" streaming />)
      expect(container).toHaveTextContent('a')
      act(() => vi.advanceTimersByTime(60))
      rerender(<Markdown text="abc" streaming />)
      expect(container.textContent).not.toContain('abc')
      act(() => vi.advanceTimersByTime(200))
      expect(container).toHaveTextContent('abc')
      rerender(<Markdown text="abcd" streaming={false} />)
      expect(container).toHaveTextContent('abcd')
    } finally {
      vi.useRealTimers()
    }
  })
})
