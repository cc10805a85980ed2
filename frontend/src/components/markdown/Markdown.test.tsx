import { render } from '@testing-library/react'
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
