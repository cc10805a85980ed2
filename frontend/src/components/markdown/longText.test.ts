import { MARKDOWN_SLICE, MAX_RUN, cutLongRuns, restoreRuns, sliceMarkdown, splitOnMarkers } from './longText'

const base64 = (n: number) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
  let out = ''
  for (let i = 0; out.length < n; i++) out += alphabet[(i * 7919) % 64]
  return out
}

describe('cutLongRuns', () => {
  it('leaves ordinary text alone', () => {
    const text = 'word '.repeat(10_000) + 'x'.repeat(MAX_RUN)
    expect(cutLongRuns(text)).toEqual({ source: text, runs: [] })
  })

  it('takes out each run longer than the limit, a marker in its place', () => {
    const a = base64(1_000_000)
    const b = '{"k":"' + 'v'.repeat(5000) + '"}'
    const text = `Here:\n\n${a}\n\nand ${b} end`
    const { source, runs } = cutLongRuns(text)
    expect(runs).toEqual([a, b])
    expect(splitOnMarkers(source)).toEqual(['Here:\n\n', 0, '\n\nand ', 1, ' end'])
  })

  it('restores the original text from any piece of the cut source', () => {
    const text = `intro ${base64(10_000)} middle\n${base64(3000)}\ttail`
    const { source, runs } = cutLongRuns(text)
    expect(restoreRuns(source, runs)).toBe(text)
    const second = source.indexOf('middle')
    expect(restoreRuns(source.slice(second), runs)).toBe(text.slice(text.indexOf('middle')))
  })

  it('does not count CJK text, which breaks anywhere, as a run', () => {
    const text = '这是一个很长的段落，没有空格。'.repeat(1000)
    expect(cutLongRuns(text).runs).toEqual([])
  })

  it('does not count emoji, which break anywhere, as a run', () => {
    expect(cutLongRuns('😀'.repeat(MAX_RUN)).runs).toEqual([])
  })

  it('neutralises marker characters and character references in the text', () => {
    const text = 'x\uE0000\uE001 y &#57344;0&#57345; ' + base64(5000)
    const { source } = cutLongRuns(text)
    expect(source.startsWith('x\uFFFD0\uFFFD y &#57344;0&#57345; ')).toBe(true)
    // A marker spelled without the page's own nonce is text, not a run.
    expect(splitOnMarkers('\uE0000\uE001')).toEqual(['\uE0000\uE001'])
  })
})

describe('sliceMarkdown', () => {
  const paragraph = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(10) + '\n\n'

  it('keeps a short answer in one slice', () => {
    expect(sliceMarkdown('# Hi\n\ntext', 1)).toEqual({ slices: ['# Hi\n\ntext'], rest: 10 })
  })

  it('cuts a long answer at paragraph boundaries, each slice within the limit', () => {
    const text = paragraph.repeat(500)
    const first = sliceMarkdown(text, 1)
    expect(first.slices).toHaveLength(1)
    expect(first.slices[0]!.length).toBeLessThanOrEqual(MARKDOWN_SLICE)
    expect(first.slices[0]!.endsWith('\n\n')).toBe(true)
    expect(first.rest).toBe(first.slices[0]!.length)
    const all = sliceMarkdown(text, Infinity)
    expect(all.slices.join('')).toBe(text)
    expect(all.rest).toBe(text.length)
    for (const slice of all.slices) expect(slice.length).toBeLessThanOrEqual(MARKDOWN_SLICE)
  })

  it('is stable while an answer grows: earlier slices do not change', () => {
    const text = paragraph.repeat(300)
    const before = sliceMarkdown(text, Infinity).slices
    const after = sliceMarkdown(text + paragraph.repeat(40), Infinity).slices
    expect(after.slice(0, before.length - 1)).toEqual(before.slice(0, -1))
  })

  it('reopens a code fence cut in two', () => {
    const code = '```python\n' + 'print("hello world")\n'.repeat(2000) + '```\n\nafter'
    const { slices } = sliceMarkdown(code, 2)
    expect(slices[0]!.startsWith('```python\n')).toBe(true)
    expect(slices[1]!.startsWith('```python\nprint')).toBe(true)
  })

  it('does not prefer a boundary before an indented line', () => {
    const item = '- item ' + 'word '.repeat(300) + '\n\n  continued ' + 'word '.repeat(300) + '\n\n'
    const { slices } = sliceMarkdown(item.repeat(40), 1)
    expect(slices[0]!.endsWith('\n\n')).toBe(true)
    expect(item.repeat(40).charAt(slices[0]!.length)).toBe('-')
  })

  it('cuts text without any line break at whitespace, never inside a marker', () => {
    const { source } = cutLongRuns(('word '.repeat(1000) + base64(3000) + ' ').repeat(20))
    const { slices } = sliceMarkdown(source, Infinity)
    expect(slices.join('')).toBe(source)
    for (const slice of slices) expect(splitOnMarkers(slice).filter((p) => typeof p === 'string' && p.includes('\uE000'))).toEqual([])
  })
})
