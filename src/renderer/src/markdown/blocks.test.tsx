// Huge code blocks, tables and lines are cut into bounded blocks while they stream, and each piece still
// renders as what it is part of (markdown/blocks.ts: a cut block is lexed after its fence or header rows).
import { act, fireEvent, render } from '@testing-library/react'
import { Marked } from 'marked'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { blocksWithTail, MAX_FENCE_PIECE_CHARS, MAX_LINE_CHARS, SEAL_CHARS, sealParts, splitBlocks, splitWork, type SplitState } from './blocks'
import { Markdown } from './Markdown'

const lexer = new Marked({ gfm: true })

function bigCode(lines: number): { text: string; code: string } {
  const body = Array.from({ length: lines }, (_, i) => `const value${i} = compute(${i}) // line ${i}`).join('\n')
  return { text: `Here is the file:\n\n\`\`\`ts\n${body}\n\`\`\`\n\nDone.`, code: body }
}

function bigTable(rows: number): string {
  const out = ['| id | name | status |', '|---|:--|--:|']
  for (let i = 0; i < rows; i++) out.push(`| ${i} | item-${i} with a few words | ${i % 2 ? 'ok' : 'failed'} |`)
  return `The table:\n\n${out.join('\n')}\n\nEnd.`
}

/** Streams `text` in `step`-character deltas, returning the largest unfinished tail seen. */
function streamed(text: string, step: number): { state: SplitState; maxTail: number } {
  let state = splitBlocks('')
  let maxTail = 0
  for (let i = step; i < text.length + step; i += step) {
    state = splitBlocks(text.slice(0, i), state)
    maxTail = Math.max(maxTail, state.text.length - state.stableEnd)
  }
  return { state, maxTail }
}

describe('huge blocks', () => {
  it('cuts an open code fence of 30,000 lines into bounded pieces, each still code', () => {
    const { text, code } = bigCode(30_000)
    const { state, maxTail } = streamed(text, 997)
    // the tail re-lexed and re-rendered per frame stays bounded (it was the whole block: ~1.2 MB)
    expect(maxTail).toBeLessThan(MAX_FENCE_PIECE_CHARS + 200)
    const parts = blocksWithTail(state)
    expect(parts.map((p) => p.src)).toEqual(blocksWithTail(splitBlocks(text)).map((p) => p.src))
    const codeParts = parts.filter((p) => p.src.includes('const value'))
    expect(codeParts.length).toBeGreaterThan(10)
    const texts = codeParts.map((p) => {
      const tokens = lexer.lexer(p.prefix + p.src).filter((t) => t.type !== 'space')
      expect(tokens.map((t) => t.type)).toEqual(['code'])
      return (tokens[0] as { text: string }).text
    })
    expect(texts.join('\n')).toBe(code)
    expect(codeParts.slice(1).every((p) => p.prefix === '```ts\n')).toBe(true)
  })

  it('keeps every row of a long table in a table, its header rows carried to each piece', () => {
    const text = bigTable(2_000)
    const { state, maxTail } = streamed(text, 613)
    // the unfinished piece, rebuilt row by row every frame, stays small (a table's pieces are cut at ~4,000 chars)
    expect(maxTail).toBeLessThan(4_000 + 613 + 200)
    const parts = blocksWithTail(state).filter((p) => p.src.includes('item-'))
    expect(parts.length).toBeGreaterThan(3)
    let rows = 0
    for (const p of parts) {
      const tokens = lexer.lexer(p.prefix + p.src).filter((t) => t.type !== 'space')
      expect(tokens.map((t) => t.type)).toEqual(['table'])
      rows += (tokens[0] as { rows: unknown[] }).rows.length
    }
    expect(rows).toBe(2_000)
    // a blank line ends the table: what follows is a paragraph of its own again
    expect(blocksWithTail(state).at(-1)).toMatchObject({ src: 'End.', prefix: '' })
  })

  it('cuts a line without line ends, losing nothing', () => {
    const text = 'x'.repeat(1_000_000)
    const { state, maxTail } = streamed(text, 4_000)
    expect(maxTail).toBeLessThanOrEqual(MAX_LINE_CHARS + 4_000)
    expect(blocksWithTail(state).map((p) => p.src).join('')).toBe(text)
    // a surrogate pair is never cut in two
    const emoji = '😀'.repeat(40_000)
    expect(blocksWithTail(splitBlocks(emoji)).every((p) => !/^[\udc00-\udfff]|[\ud800-\udbff]$/.test(p.src))).toBe(true)
  })

  it('never starts a row inside a cut code block or table', () => {
    const { text } = bigCode(6_000)
    const rows = sealParts(text)
    // the fence is whole in one row; the rows before and after it are cut as usual
    expect(rows.filter((r) => r.includes('```ts')).length).toBe(1)
    const fenced = rows.find((r) => r.includes('```ts'))!
    expect(fenced).toContain('line 5999\n```')
    expect(rows.join('')).toBe(text)
  })
})

/** The rows as sealing defined them: for each row, text[0, k·SEAL_CHARS) split afresh for k = 1, 2, … */
function naiveSealParts(text: string): string[] {
  const out: string[] = []
  let rest = text
  for (;;) {
    let cut = 0
    for (let k = 1; k * SEAL_CHARS <= rest.length && !cut; k++) cut = splitBlocks(rest.slice(0, k * SEAL_CHARS)).cleanEnd
    if (!cut) break
    out.push(rest.slice(0, cut))
    rest = rest.slice(cut)
  }
  out.push(rest)
  return out
}

describe('sealing a huge reply into rows', () => {
  // a 1.4 MB code block has no row boundary until it ends: each step used to split the text from its start again
  const { text: code } = bigCode(35_000)
  const line = 'intro\n\n' + 'y'.repeat(1_400_000) + '\n\nafter'
  const table = bigTable(25_000)
  const prose = Array.from({ length: 25_000 }, (_, i) => `Paragraph ${i} with a few words to make it realistic.`).join('\n\n')

  it.each([
    ['code block', code],
    ['line', line],
    ['table', table],
    ['prose', prose],
  ])('does work linear in the length of a 1.4 MB %s', (_, text) => {
    expect(text.length).toBeGreaterThan(1_000_000)
    splitWork.chars = 0
    const rows = sealParts(text)
    expect(rows.join('')).toBe(text)
    // each 12,000-character step rescans at most the unfinished piece (≤ ~50,000) once more
    expect(splitWork.chars).toBeLessThan(6 * text.length)
  })

  it('finds a huge line\'s end once, not again for each of its cuts', () => {
    splitWork.chars = 0
    const { blocks } = splitBlocks('x'.repeat(1_400_000))
    expect(blocks.length).toBeGreaterThan(40)
    expect(splitWork.chars).toBeLessThan(2 * 1_400_000)
  })

  it('cuts where splitting each prefix afresh cuts', () => {
    const mixed = [bigCode(4_000).text, bigTable(1_500), 'z'.repeat(70_000), prose.slice(0, 60_000)].join('\n\n')
    for (const text of [mixed, code.slice(0, 300_000), table.slice(0, 200_000)]) expect(sealParts(text)).toEqual(naiveSealParts(text))
  })
})

describe('huge blocks rendered', () => {
  it('shows a cut code block as one: one header, every line, no line shown as text outside the code', () => {
    const { text, code } = bigCode(3_000)
    const { container } = render(<Markdown text={text} cacheKey="huge-code" final />)
    const blocks = container.querySelectorAll('.code-block')
    expect(blocks.length).toBeGreaterThan(1)
    expect(container.querySelectorAll('.code-head')).toHaveLength(1)
    // the first piece's header has the one Copy (tested below)
    expect(container.querySelectorAll('button[aria-label="Copy code"]')).toHaveLength(1)
    expect([...blocks].map((b) => b.querySelector('code')!.textContent).join('\n')).toBe(code)
    expect([...container.querySelectorAll('p')].map((p) => p.textContent)).toEqual(['Here is the file:', 'Done.'])
  })

  it('shows a cut table as tables with one visible header row', () => {
    const { container } = render(<Markdown text={bigTable(2_000)} cacheKey="huge-table" final />)
    expect(container.querySelectorAll('tbody tr')).toHaveLength(2_000)
    expect(container.querySelectorAll('thead:not(.sr-only)')).toHaveLength(1)
    expect([...container.querySelectorAll('p')].map((p) => p.textContent)).toEqual(['The table:', 'End.'])
  })

  describe('Copy of a cut code block', () => {
    const writeText = vi.fn((_: string) => Promise.resolve())
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    afterEach(() => writeText.mockClear())

    const copy = async (container: HTMLElement) => {
      const buttons = container.querySelectorAll('button[aria-label="Copy code"]')
      expect(buttons).toHaveLength(1)
      await act(async () => {
        fireEvent.click(buttons[0])
        await Promise.resolve()
      })
      return writeText.mock.calls.at(-1)?.[0]
    }

    it('copies the whole block, every piece, from the first piece\'s header', async () => {
      const { text, code } = bigCode(3_000)
      const { container } = render(<Markdown text={text} cacheKey="copy-whole" final />)
      expect(code.length).toBeGreaterThan(2 * MAX_FENCE_PIECE_CHARS)
      expect(await copy(container)).toBe(code)
    })

    it('copies what has streamed so far, not what had when the first piece was drawn', async () => {
      const { text } = bigCode(3_000)
      const at = text.indexOf('line 2500\n') + 'line 2500'.length
      const { container, rerender } = render(<Markdown text={text.slice(0, text.indexOf('line 1500\n'))} cacheKey="copy-streaming" />)
      rerender(<Markdown text={text.slice(0, at)} cacheKey="copy-streaming" />)
      const copied = await copy(container)
      expect(copied?.endsWith('// line 2500')).toBe(true)
      expect(copied?.split('\n')).toHaveLength(2_501)
    })
  })
})
