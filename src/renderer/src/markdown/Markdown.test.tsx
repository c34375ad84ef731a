import { fireEvent, render, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { blocksWithTail, splitBlocks } from './blocks'
import { htmlToNodes } from './highlight'
import { Markdown, PLAIN_TEXT_AFTER_CHARS, safeHref } from './Markdown'

describe('block splitting', () => {
  it('splits at blank lines but never inside a code fence', () => {
    const text = 'Intro para\n\n```js\nconst a = 1\n\nconst b = 2\n```\nAfter fence\n\n- a\n- b\n\ntail'
    const s = splitBlocks(text)
    expect(blocksWithTail(s).map((b) => [b.src, b.done])).toEqual([
      ['Intro para', true],
      ['```js\nconst a = 1\n\nconst b = 2\n```', true],
      ['After fence', true],
      ['- a\n- b', true],
      ['tail', false],
    ])
  })

  it('the unfinished tail loses its trailing line ends, in linear time', () => {
    expect(blocksWithTail(splitBlocks('para\n\ntail\r\n')).map((b) => b.src)).toEqual(['para', 'tail'])
    // /[\r\n]+$/ retried from every CR of the run: 8 s for this reply, per rendered frame while it streamed
    const text = 'x' + '\r'.repeat(80_000) + 'y'
    const t0 = performance.now()
    expect(blocksWithTail(splitBlocks(text)).map((b) => b.src).join('')).toBe(text)
    expect(performance.now() - t0).toBeLessThan(1000)
  })

  it('keeps indented continuations with their block', () => {
    const s = splitBlocks('1. step\n\n    indented code in the item\n\n2. next\n')
    expect(blocksWithTail(s).map((b) => b.src)).toEqual(['1. step\n\n    indented code in the item', '2. next'])
  })

  it('is incremental: a streamed text gives the same blocks as the whole text, reusing finished ones', () => {
    const full = Array.from({ length: 30 }, (_, i) => (i % 5 === 0 ? '```py\nprint(1)\n\nprint(2)\n```' : `Paragraph ${i} with some words.`)).join('\n\n')
    let state = splitBlocks('')
    const seen: string[][] = []
    for (let i = 1; i <= full.length; i += 7) {
      const prev = state
      state = splitBlocks(full.slice(0, i), prev)
      // finished blocks never change once emitted
      expect(state.blocks.slice(0, prev.blocks.length)).toEqual(prev.blocks)
      seen.push(state.blocks)
    }
    state = splitBlocks(full, state)
    expect(blocksWithTail(state).map((b) => b.src)).toEqual(blocksWithTail(splitBlocks(full)).map((b) => b.src))
  })

  it('bounds the tail of one endless paragraph', () => {
    const line = 'word '.repeat(20) + '\n'
    const s = splitBlocks(line.repeat(2000))
    expect(s.text.length - s.stableEnd).toBeLessThan(20_000)
  })
})

describe('markdown rendering', () => {
  // jsdom has no scrollIntoView: footnote tests stand one in, then put things back
  const realScroll = Element.prototype.scrollIntoView
  afterEach(() => {
    Element.prototype.scrollIntoView = realScroll
  })

  it('renders markdown as elements and never interprets HTML from the model', () => {
    const { container } = render(<Markdown text={'# Title\n\nHello **bold** <img src=x onerror=alert(1)> <script>alert(1)</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done'} />)
    expect(container.querySelector('h1')?.textContent).toBe('Title')
    expect(container.querySelector('strong')?.textContent).toBe('bold')
    expect(container.querySelector('img')).toBeNull()
    expect(container.querySelector('script')).toBeNull()
    expect(container.textContent).toContain('<img src=x onerror=alert(1)>')
    expect(container.querySelectorAll('td')).toHaveLength(2)
    expect(container.querySelector('input[type=checkbox]')).toBeChecked()
  })

  it('wraps table cells in a sized box inside a scrolling wrapper, keeping alignment on the cell', () => {
    const { container } = render(<Markdown text={'| a | b |\n|---|--:|\n| **x** | 2 |'} />)
    const wrap = container.querySelector('.md-table-wrap')
    expect(wrap?.querySelector('table')).not.toBeNull()
    const cells = [...container.querySelectorAll('th, td')]
    expect(cells).toHaveLength(4)
    for (const c of cells) expect(c.firstElementChild).toHaveClass('md-cell')
    expect(cells[0].querySelector('.md-cell')?.textContent).toBe('a')
    expect(cells[2].querySelector('.md-cell strong')?.textContent).toBe('x')
    expect((cells[3] as HTMLElement).style.textAlign).toBe('right')
  })

  it('links open externally and only for safe schemes', () => {
    const { container } = render(<Markdown text={'[ok](https://example.com/a) [bad](javascript:alert(1)) [file](file:///etc/passwd)'} />)
    const links = container.querySelectorAll('a')
    expect(links).toHaveLength(1)
    expect(links[0].getAttribute('href')).toBe('https://example.com/a')
    expect(links[0].getAttribute('target')).toBe('_blank')
    expect(links[0].getAttribute('rel')).toBe('noreferrer noopener')
    expect(safeHref(' JAVASCRIPT:alert(1)')).toBeUndefined()
  })

  it('highlights finished code blocks and leaves a streaming fence plain', async () => {
    const { container, rerender } = render(<Markdown text={'```ts\nconst x: number = 1\n'} />)
    expect(container.querySelector('code span')).toBeNull()
    rerender(<Markdown text={'```ts\nconst x: number = 1\n```\n\ndone'} />)
    // the highlighter is a chunk of its own: the first finished block loads it
    await waitFor(() => expect(container.querySelector('code .hljs-keyword')?.textContent).toBe('const'))
    expect(container.querySelector('button[aria-label="Copy code"]')).not.toBeNull()
  })

  it('a finished message highlights its last code block even without anything after the fence', async () => {
    const text = 'Here:\n\n```ts\nconst x: number = 1\n```'
    const { container, rerender } = render(<Markdown text={text} />)
    expect(container.querySelector('code span')).toBeNull() // still streaming: the fence may go on
    expect(container.querySelector('.md-tail')).not.toBeNull()
    rerender(<Markdown text={text} final />)
    await waitFor(() => expect(container.querySelector('code .hljs-keyword')?.textContent).toBe('const'))
    expect(container.querySelector('.md-tail')).toBeNull()
  })

  it('parses hljs output without innerHTML and rejects unexpected markup', () => {
    expect(htmlToNodes('<span class="hljs-keyword">let</span> x &lt; 1')).toHaveLength(2)
    expect(htmlToNodes('<img src=x>')).toBeUndefined()
    expect(htmlToNodes('<span class="a">unclosed')).toBeUndefined()
  })

  it('decodes entities as text', () => {
    const { container } = render(<Markdown text={'a &amp; b &lt;tag&gt; &#x1F600;'} />)
    expect(container.textContent).toBe('a & b <tag> 😀')
  })

  it('renders text beyond the plain-text threshold without markdown parsing', () => {
    const para = '**bold** ' + 'text '.repeat(2000) + '\n\n'
    const text = para.repeat(Math.ceil((PLAIN_TEXT_AFTER_CHARS + 20_000) / para.length))
    const { container } = render(<Markdown text={text} />)
    expect(container.querySelectorAll('.md-plain').length).toBeGreaterThan(0)
    expect(container.querySelector('.md-plain')!.textContent).toContain('**bold**')
    expect(container.querySelectorAll('strong').length).toBe(Math.ceil(PLAIN_TEXT_AFTER_CHARS / para.length))
  })

  it('renders footnotes: a reference is a superscript button that jumps to its definition and back', () => {
    const text = 'Paris is the capital[^1] and big[^pop].\n\nCode `a[^1]` stays code.\n\n[^1]: See https://example.com/paris\n  for **more**.\n[^pop]: About 2 million.'
    const { container } = render(<Markdown text={text} final />)
    const refs = [...container.querySelectorAll<HTMLButtonElement>('sup.md-fnref button')]
    expect(refs.map((b) => b.textContent)).toEqual(['1', 'pop'])
    expect(container.querySelector('code')?.textContent).toBe('a[^1]')
    const defs = [...container.querySelectorAll('.md-footnote')]
    expect(defs.map((d) => d.textContent)).toEqual(['1 See https://example.com/paris\nfor more.', 'pop About 2 million.'])
    expect(defs[0].querySelector('a')?.getAttribute('href')).toBe('https://example.com/paris')
    expect(defs[0].querySelector('strong')?.textContent).toBe('more')
    expect(container.textContent!.replace('a[^1]', '')).not.toContain('[^') // only the code span keeps it

    const scrolled: string[] = []
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this.getAttribute('data-footnote') ?? `ref:${this.getAttribute('data-footnote-ref')}`)
    }
    fireEvent.click(refs[1])
    expect(scrolled).toEqual(['pop'])
    expect(document.activeElement?.getAttribute('data-footnote')).toBe('pop')
    fireEvent.click(defs[0].querySelector('button')!)
    expect(scrolled).toEqual(['pop', 'ref:1'])
    expect(document.activeElement).toBe(refs[0])
  })

  it('a footnote jump stays within its own message', () => {
    const { container } = render(
      <>
        <Markdown text={'First[^1]'} final />
        <Markdown text={'Second\n\n[^1]: only here'} final />
      </>,
    )
    const scrolled: Element[] = []
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this)
    }
    fireEvent.click(container.querySelector('sup.md-fnref button')!)
    expect(scrolled).toEqual([])
  })
})

describe('hidden and bidi characters', () => {
  it('a link whose text or target hides characters shows them as tokens and says where it goes', () => {
    const { container } = render(<Markdown text={'Get [report\u202efdp.exe](https://example.com/x\u202e.exe) or <https://ok.example/a\u200bb>'} />)
    const [link, auto] = [...container.querySelectorAll('a')]
    expect(link.textContent).toBe('report⟨U+202E⟩fdp.exe')
    expect(link.querySelector('.hidden-char-bidi')).toHaveAttribute('title', 'U+202E right-to-left override (hidden in the text)')
    expect(link).toHaveAttribute('title', 'Hidden or bidirectional characters; opens https://example.com/x%E2%80%AE.exe')
    expect(link).toHaveClass('md-link-hidden-chars')
    expect(auto.textContent).toBe('https://ok.example/a⟨U+200B⟩b')
    expect(container.querySelector('p')!.textContent).not.toMatch(/[\u202e\u200b]/)
  })

  it('an ordinary link is left as it is; paragraphs, items and headings take their own direction', () => {
    const { container } = render(<Markdown text={'# T\n\n[docs](https://example.com "Docs")\n\n- one\n- two'} />)
    const link = container.querySelector('a')!
    expect(link).toHaveAttribute('title', 'Docs')
    expect(link.querySelector('.hidden-char')).toBeNull()
    for (const el of container.querySelectorAll('p, li, h1')) expect(el).toHaveAttribute('dir', 'auto')
  })

  it('text outside links keeps its characters (shown as written; CSS isolates them: e2e/bidi-isolation.spec.ts)', () => {
    const { container } = render(<Markdown text={'see `\u202eabc` and more'} />)
    expect(container.querySelector('code')!.textContent).toBe('\u202eabc')
  })
})
