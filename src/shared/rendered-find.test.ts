import { describe, expect, it, vi } from 'vitest'
import { markdownChunks } from './markdown-chunks'
import { plainBlocks } from './plain-blocks'
import { clearRenderedPieces, countInReply, firstPieceShowing, mayShow, phraseMayShow, queryShape, renderedByPieces, renderedLengthBound, renderedPiecesKept } from './rendered-find'
import { renderedMarkdownBlocks, renderedMarkdownText } from './rendered-text'
import { occurrencesIn } from './search-text'

// markdown a cut could misread: blocks that go on past blank lines, definitions, containers, CRLF
const TRICKY = [
  'para one\n\npara two\n\n\npara three',
  '```ts\nconst a = 1\n\nconst b = 2\n```\n\nafter the fence',
  '~~~\nx\n\ny\n~~~~\n\nz',
  '````\n```\n\nnot closed by three\n````\n\nout',
  '```a`b\nnot a fence\n\nstill para\n```\nfence now\n\ninside\n```\n\nend',
  '- one\n\n- two\n\n- three\n\nafter the list',
  '1. step\n\n   ```sh\n   npm test\n\n   npm run x\n   ```\n\n2. next step\n\ndone',
  '- item\n  ```\n  left open in the item\n\nout of the item\n```\nthe top-level fence\n\nstill in it\n```\n\ntail',
  '    indented code\n\n    more code\n\nparagraph',
  '> quote line\n> more\n\n> second quote\n\nplain',
  '<div>\nhtml block\n\nstill html?\n</div>\n\nafter',
  '<!-- a comment\n\nthat goes on -->\n\ntext',
  'See [the guide][g] and [other].\n\n[g]: https://example.com/guide "Guide"\n\n[other]: https://x.example',
  'A footnote[^1] here.\n\n[^1]: The note text\n  continued.\n\nAfter the note.',
  '| a | b |\n|---|---|\n| AT&amp;T | `x` |\n\nnext',
  'Title\n=====\n\nSub\n---\n\n# Heading #\n\ntext',
  'line with two spaces  \nbreak\\\nand backslash break\n\nend',
  'windows\r\nline ends\r\n\r\nsecond para\r\n',
  'tab\tseparated\n\n\tcode with a tab\n\n- a\tb',
  '![](pic.png) ![alt text](p.png)\n\n![]() empty',
  '* * *\n\n---\n\n___\n\nrule above',
  'AT&amp;T, a \\* b, &lt;div&gt;, &#x41;BC, &copy; 2026\n\n`&amp;` in code',
  'the **quick** fox and _the_ ~~lazy~~ dog\n\n[the guide](https://docs.example/guide) said',
  'https://example.com/path and www.example.org, mail a@b.example\n\n<https://auto.example>',
  '- [ ] task\n- [x] done\n\n  continued item paragraph\n\nout',
  '2) ordered\n3) more\n\nfoo\n\n10. ten',
  '> quote\n```\nfence after quote\n\nin fence\n```\n\nafter',
  'para\n    not code (continuation)\n\n  indented start\n\nx',
]

// a seeded mix of blocks, so many shapes meet many neighbours
function corpus(): string[] {
  let seed = 7
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const pick = <T,>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]
  const bits = [
    'plain words here',
    'AT&amp;T merged',
    'a \\* b',
    '**bold** and *em*',
    '[link text](https://u.example/x)',
    '`code span`',
    '&lt;div&gt;',
    '&#x41;&#66;C',
    'the **quick** fox',
    'Ulaan**baatar**',
    '![img](i.png)',
    'foot[^n]',
  ]
  const blocks = [
    () => `${pick(bits)} ${pick(bits)} ${pick(bits)}`,
    () => `## ${pick(bits)}`,
    () => `- ${pick(bits)}\n- ${pick(bits)}`,
    () => `- ${pick(bits)}\n\n- ${pick(bits)}`,
    () => `1. ${pick(bits)}\n\n   ${pick(bits)}`,
    () => `> ${pick(bits)}\n> ${pick(bits)}`,
    () => `\`\`\`\n${pick(bits)}\n\n${pick(bits)}\n\`\`\``,
    () => `    ${pick(bits)}`,
    () => `| h | i |\n|---|---|\n| ${pick(bits)} | ${pick(bits)} |`,
    () => `[^n]: ${pick(bits)}`,
    () => `  ${pick(bits)}`,
    () => '---',
    () => `<span>${pick(bits)}</span>`,
  ]
  const out: string[] = []
  for (let i = 0; i < 300; i++) {
    const n = 1 + Math.floor(rand() * 8)
    out.push(Array.from({ length: n }, () => pick(blocks)()).join(pick(['\n\n', '\n\n\n', '\n'])))
  }
  return out
}

// every tricky text next to every other: what one leaves open meets what the next starts with
const PAIRS = TRICKY.flatMap((a) => TRICKY.map((b) => `${a}\n\n${b}`))
const ALL = [...TRICKY, ...corpus()]

describe('markdownChunks', () => {
  it('cuts only where rendering piece by piece gives the blocks rendering the whole gives', () => {
    let cut = 0
    for (const md of [...ALL, ...PAIRS]) {
      const pieces = markdownChunks(md)
      if (!pieces) continue
      expect(pieces.join('')).toBe(md.replace(/\r\n|\r/g, '\n'))
      if (pieces.length > 1) cut++
      expect(pieces.flatMap((p) => renderedMarkdownBlocks(p)), md).toEqual(renderedMarkdownBlocks(md))
    }
    expect(cut).toBeGreaterThan(ALL.length / 3)
  })
  it('does not cut what renders across blank lines: link definitions, HTML blocks, a fence left open in a list item', () => {
    expect(markdownChunks(TRICKY[12])).toBeUndefined()
    expect(markdownChunks(TRICKY[10])).toBeUndefined()
    expect(markdownChunks(TRICKY[11])).toBeUndefined()
    expect(markdownChunks(TRICKY[7])).toBeUndefined()
    // a fence's blank lines and a loose list's items stay together
    expect(markdownChunks(TRICKY[1])).toEqual(['```ts\nconst a = 1\n\nconst b = 2\n```\n\n', 'after the fence'])
    expect(markdownChunks(TRICKY[5])).toEqual(['- one\n\n- two\n\n- three\n\n', 'after the list'])
  })
})

/** a word of `q` the source has only with markup inside it */
const cutByMarkup = (md: string, q: string) => {
  const lower = md.toLowerCase()
  const bare = lower.replace(/[*_~`[\]^]/g, '')
  return (q.match(/[\p{L}\p{N}]+/gu) ?? []).some((w) => !lower.includes(w) && bare.includes(w))
}

describe('plainBlocks', () => {
  it('gives what marked gives for the pieces it takes: plain paragraphs and headings, fenced code', () => {
    const samples = [
      'Plain words here\nand a second line\n\n',
      'Links www.example.com and https://x.example/a_b?c=1, mail a@b.example.\n',
      'Ends with a backslash\\\nnext',
      'Two spaces  \nbreak',
      'Unicode: naïve café — “quotes” (parens) {braces} 100% $5 #hash ^caret\n\n\n',
      '## A heading\n\n',
      '# Closed heading #\n',
      '###### Six\n',
      '```ts\nconst a = 1\n  indented\n```\n\n',
      '~~~\n```\nnot closing\n~~~~\n',
      '```\n```\n',
      '````\ncode\n```\n````\n',
      '```\ncode\n```\nafter\n',
      '```\nunclosed\n\n',
      '```a`b\nnot a fence\n```\n',
      '  ```\nindented fence\n  ```\n',
      '```\ncode\n```  \n\n',
    ]
    let taken = 0
    for (const piece of [...samples, ...ALL.flatMap((md) => markdownChunks(md) ?? [])]) {
      const fast = plainBlocks(piece)
      if (!fast) continue
      taken++
      expect(fast, JSON.stringify(piece)).toEqual(renderedMarkdownBlocks(piece))
    }
    expect(taken).toBeGreaterThan(20)
    expect(plainBlocks(samples[0])).toEqual(['Plain words here\nand a second line'])
    expect(plainBlocks(samples[8])).toEqual(['const a = 1\n  indented'])
    expect(plainBlocks(samples[3])).toBeUndefined() // a hard break
    expect(plainBlocks(samples[12])).toBeUndefined() // more than the block
  })
})

describe('mayShow', () => {
  const may = (md: string, q: string) => mayShow(md.toLowerCase(), queryShape(q.toLowerCase()))
  it('passes source whose rendering shows the query where the source has it not', () => {
    expect(may('AT&amp;T merged', 'AT&T')).toBe(true)
    expect(may('a \\* b', 'a * b')).toBe(true)
    expect(may('&lt;div&gt;', '<div>')).toBe(true)
    expect(may('&#x41;BC', 'abc')).toBe(true)
    expect(may('the **quick** fox', 'the quick fox')).toBe(true)
    expect(may('[the guide](https://u.example) said', 'the guide said')).toBe(true)
    // the same as a transcript's JSON line
    expect(may(JSON.stringify({ text: 'say \\"AT&amp;T\\"' }), '"at&t"')).toBe(true)
  })
  it('fails source that cannot show it', () => {
    expect(may('AT&amp;T merged', 'verizon')).toBe(false)
    expect(may('a b', 'a * b')).toBe(false)
    expect(may('&amp;', '<')).toBe(false)
  })
  it('is never false where the rendered text holds the query (every substring of every rendering tried)', () => {
    let tried = 0
    for (const md of ALL) {
      const text = renderedMarkdownText(md).toLowerCase()
      for (const line of text.split('\n')) {
        for (let i = 0; i < line.length; i += 3) {
          for (const len of [1, 4, 9, 17]) {
            const q = line.slice(i, i + len)
            // the one documented miss: a word cut inside by markup (`Ulaan**baatar**`, `foot[^n]`)
            if (!q.trim() || cutByMarkup(md, q)) continue
            tried++
            expect(mayShow(md.toLowerCase(), queryShape(q)), `${JSON.stringify(q)} in ${JSON.stringify(md)}`).toBe(true)
          }
        }
      }
    }
    expect(tried).toBeGreaterThan(10_000)
  })
})

describe('phraseMayShow', () => {
  const may = (md: string, q: string) => phraseMayShow(md.toLowerCase(), queryShape(q.toLowerCase()))
  it('passes a piece with the query\'s characters in order, markup between; fails one with its words apart', () => {
    expect(may('the **quick** fox', 'the quick fox')).toBe(true)
    expect(may('[the guide](https://u.example/x) said', 'the guide said')).toBe(true)
    expect(may('a \\* b', 'a * b')).toBe(true)
    expect(may('`quick\nfox`', 'quick fox')).toBe(true)
    expect(may('Ulaan**baatar**', 'ulaanbaatar')).toBe(true)
    expect(may('the fox is quick', 'quick fox')).toBe(false)
    expect(may('quick brown fox', 'quick fox')).toBe(false)
    // an entity shows a character
    expect(may('AT&amp;T merged', 'at&t')).toBe(true)
    expect(may('&#x41;&#66;C', 'abc')).toBe(true)
    expect(may('quick &amp; brown fox', 'quick fox')).toBe(false)
    // rendering may add text here (an image's "🖼 image"): not tested
    expect(may('quick ![](p.png) fox', 'quick fox')).toBe(true)
  })
  it('is never false where a piece\'s or a whole reply\'s rendered text holds the query (every substring of every rendering tried)', () => {
    let tried = 0
    for (const md of [...ALL, ...PAIRS]) {
      for (const piece of [md, ...(markdownChunks(md) ?? [])]) {
        const lower = piece.toLowerCase()
        for (const line of renderedMarkdownText(piece).toLowerCase().split('\n')) {
          for (let i = 0; i < line.length; i += 3) {
            for (const len of [1, 4, 11, 19, 40]) {
              const q = line.slice(i, i + len)
              if (!q.trim()) continue
              tried++
              expect(phraseMayShow(lower, queryShape(q)), `${JSON.stringify(q)} in ${JSON.stringify(piece)}`).toBe(true)
            }
          }
        }
      }
    }
    expect(tried).toBeGreaterThan(50_000)
  })
  it('keeps a reply whose words are all there but never together from being rendered', () => {
    clearRenderedPieces()
    // a piece mayShow passes (every word is in it) that is not plain (lexed, then kept by content)
    const reply = 'The **server** sent the request.\n\nA token for the *window*.\n\n- the queue\n- of tasks'
    expect(firstPieceShowing(reply, queryShape('server the request'))).toBeUndefined()
    expect(firstPieceShowing(reply, queryShape('queue of the window token'))).toBeUndefined()
    expect(renderedPiecesKept()).toBe(0)
    expect(firstPieceShowing(reply, queryShape('the server sent'))).toBe('The server sent the request.')
    expect(renderedPiecesKept()).toBe(1)
  })
})

describe('countInReply', () => {
  it('counts what rendering the whole reply counts, rendering only the pieces that may show the query; cached or not', () => {
    const queries = ['at&t', 'a * b', '<div>', 'abc', 'the quick fox', 'link text', 'e', 'code', '🖼 image', 'image', 'bold and em', 'n ']
    for (const cached of [false, true, true]) {
      if (!cached) clearRenderedPieces()
      for (const md of ALL) {
        const whole = renderedMarkdownText(md).toLowerCase()
        for (const q of queries) expect(countInReply(md, queryShape(q)), `${q} in ${JSON.stringify(md)}`).toBe(occurrencesIn(whole, q))
      }
    }
  })
  it('assembles the same rendered text from its pieces; a rendered text is never longer than its bound', () => {
    for (const md of ALL) {
      expect(renderedByPieces(md)).toBe(renderedMarkdownText(md))
      expect(renderedMarkdownText(md).length).toBeLessThanOrEqual(renderedLengthBound(md))
    }
  })
})

describe('rendered pieces kept', () => {
  it('are dropped once find has not asked for one in five minutes, not while it is in use', () => {
    vi.useFakeTimers()
    try {
      clearRenderedPieces()
      const reply = 'The **server** sent the request.'
      const shape = queryShape('server')
      expect(firstPieceShowing(reply, shape)).toBe('The server sent the request.')
      expect(renderedPiecesKept()).toBe(1)
      vi.advanceTimersByTime(4 * 60_000)
      expect(firstPieceShowing(reply, shape)).toBe('The server sent the request.') // used again: kept longer
      vi.advanceTimersByTime(4 * 60_000)
      expect(renderedPiecesKept()).toBe(1)
      vi.advanceTimersByTime(2 * 60_000)
      expect(renderedPiecesKept()).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })
})
