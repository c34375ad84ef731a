import { describe, expect, it } from 'vitest'
import { countOccurrences, matchMessageSnippet } from './message-search'
import { clearRenderedPieces } from './rendered-find'
import { renderedMarkdownText } from './rendered-text'
import { occurrencesIn } from './search-text'

const reply = (...texts: string[]) => ({ role: 'assistant', content: texts.map((text) => ({ type: 'text', text })) })

describe('a reply whose rendering shows the query where its source has it not', () => {
  it('is counted: entities, escapes and markup between words read as the window shows them', () => {
    expect(countOccurrences(reply('AT&amp;T bought AT&amp;T'), 'AT&T')).toBe(2)
    expect(countOccurrences(reply('2 a \\* b and a \\* b'), 'a * b')).toBe(2)
    expect(countOccurrences(reply('use &lt;div&gt; here'), '<div>')).toBe(1)
    expect(countOccurrences(reply('&#x41;BC'), 'abc')).toBe(1)
    expect(countOccurrences(reply('the **quick** fox\n\n```\nthe quick fox\n```'), 'the quick fox')).toBe(2)
    // a user's message shows as written
    expect(countOccurrences({ role: 'user', content: 'AT&amp;T' }, 'AT&T')).toBe(0)
  })
  it('the sidebar finds it too, with a snippet of what the window shows; source matches keep their snippet', () => {
    expect(matchMessageSnippet(reply('Today AT&amp;T merged.'), 'at&t')).toBe('Today AT&T merged.')
    expect(matchMessageSnippet(reply('x', 'a **very** long day'), 'very long')).toBe('a very long day')
    expect(matchMessageSnippet(reply('Today AT&amp;T merged.'), '&amp;')).toBe('Today AT&amp;T merged.')
    expect(matchMessageSnippet({ role: 'user', content: 'AT&amp;T' }, 'AT&T')).toBeUndefined()
    expect(matchMessageSnippet(reply('nothing here'), 'at&t')).toBeUndefined()
    // found in the one piece of a long reply that shows it; past the 50,000 characters read, not at all
    const paras = Array.from({ length: 2000 }, (_, i) => `Paragraph **${i}** with [a link](https://x.example/${i}).`)
    paras[150] = 'Then AT&amp;T merged at last.'
    paras[1900] = 'And T-Mobile &amp; Sprint.'
    const long = paras.join('\n\n')
    expect(matchMessageSnippet(reply(long.slice(0, 40_000)), 'at&t merged')).toBe('Then AT&T merged at last.')
    expect(matchMessageSnippet(reply(long), 'at&t merged')).toBe('Then AT&T merged at last.')
    expect(matchMessageSnippet(reply(long), 'mobile & sprint')).toBeUndefined()
  })
  it('counts the same piece by piece as whole: long replies, several text parts, tool calls, the 50,000-character bound', () => {
    const long = Array.from({ length: 300 }, (_, i) => `## Part ${i}\n\nAT&amp;T **and** T-Mobile, part ${i}.\n\n\`\`\`\nAT&amp;T\n\`\`\``).join('\n\n')
    expect(long.length).toBeGreaterThan(20_000)
    const huge = `${long}\n\n${long}\n\n${long}` // past the bound: counted from its first 50,000 characters, rendered whole
    const messages = [
      reply(long),
      reply('AT&amp;T', long),
      { role: 'assistant', content: [{ type: 'text', text: 'AT&amp;T' }, { type: 'toolCall', id: 't', name: 'at&t', arguments: { q: 'AT&T', n: 2 } }] },
      reply(huge),
      { role: 'assistant', content: long },
    ]
    const counts = () => messages.flatMap((m) => ['at&t', 'and t', 'part 1', 'at&amp;t'].map((q) => countOccurrences(m, q)))
    clearRenderedPieces()
    const first = counts()
    expect(counts()).toEqual(first) // cached
    clearRenderedPieces()
    expect(counts()).toEqual(first)
    // as the window counts: rendered whole
    expect(first.slice(0, 4)).toEqual(['at&t', 'and t', 'part 1', 'at&amp;t'].map((q) => occurrencesIn(renderedMarkdownText(long).toLowerCase(), q)))
    expect(first.slice(0, 4)).toEqual([300, 300, 222, 300]) // a code block shows `&amp;` as written
    expect(first[8]).toBe(3) // text, tool name and argument
  })
})
