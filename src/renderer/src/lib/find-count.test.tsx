// The find bar's count (the runtime's countOccurrences over a reply) and its marks (matchRanges over the rendered
// row) must agree where the markdown source and the rendered text differ.
import { render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup } from '@testing-library/react'
import { countOccurrences } from '../../../shared/message-search'
import { renderedMarkdownText } from '../../../shared/rendered-text'
import { Markdown } from '../markdown/Markdown'
import { matchRanges } from './find-highlight'

afterEach(cleanup)

const reply = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] })
const marks = (text: string, query: string) => {
  const { container } = render(<Markdown text={text} cacheKey={`k-${text}`} final />)
  return matchRanges(container, query).map((r) => r.toString())
}

// [markdown, query, occurrences as rendered]
const CASES: Array<[string, string, number]> = [
  // syntax between the words: the raw text has no "very bold", the rendered one has it once
  ['This is **very** bold and **very** **bold**.', 'very bold', 2],
  // a link's URL is not shown: only its text counts
  ['See [the docs](https://docs.example/guide) and https://docs.example too.', 'docs.example', 1],
  ['[guide](https://example.com/guide) guide', 'guide', 2],
  // escaped characters read as themselves
  ['2 \\* 3 \\* 4 and a\\_b', '\\*', 0],
  ['2 \\* 3 \\* 4', '* 3 *', 1],
  // a code fence's info string and fence lines are not text
  ['```typescript\nconst x = 1\n```\n\nIn typescript it is short.', 'typescript', 1],
  ['```\nfoo\n```', '```', 0],
  // entities decode
  ['Tom &amp; Jerry', '&amp;', 0],
  ['Tom &amp; Jerry', 'tom & jerry', 1],
  // an occurrence never spans two blocks
  ['end of one\n\none more', 'one one', 0],
  // inline code and emphasis in a list
  ['- use `npm test` to *test*\n- then test again', 'test', 3],
]

describe('find count and marks agree on a reply whose source differs from its rendered text', () => {
  it.each(CASES)('%j / %j', (text, query, n) => {
    expect(countOccurrences(reply(text), query)).toBe(n)
    expect(marks(text, query)).toHaveLength(n)
  })

  it('a mark spanning elements covers the rendered words', () => {
    expect(marks('a **very** bold move', 'very bold')).toEqual(['very bold'])
    expect(renderedMarkdownText('[x](http://u) **y**\n\n```js\nz\n```')).toBe('x y\nz')
  })

  it('user messages are counted as written (the window shows them as plain text)', () => {
    expect(countOccurrences({ role: 'user', content: 'a **b**' }, '**b**')).toBe(1)
  })
})
