import { render } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { codeLineGroups, GROUP_FROM_CHARS, groupLines, LINES_PER_GROUP } from './code-lines'
import { Markdown } from './Markdown'

const lines = (n: number) => Array.from({ length: n }, (_, i) => `const value${i} = compute(${i}, 'line ${i} of the long file') // c${i}`).join('\n')

describe('long code blocks in line groups', () => {
  it('groups join back to the code, each ending with its line end, LINES_PER_GROUP lines at most', () => {
    const code = lines(1000)
    const groups = codeLineGroups(code)
    expect(groups.join('')).toBe(code)
    expect(groups.length).toBe(Math.ceil(1000 / LINES_PER_GROUP))
    expect(groups.slice(0, -1).every((g) => g.endsWith('\n') && groupLines(g) === LINES_PER_GROUP)).toBe(true)
    expect(groupLines(groups[groups.length - 1])).toBe(1000 % LINES_PER_GROUP || LINES_PER_GROUP)
    // short code, or one huge line, stays one text
    expect(codeLineGroups(lines(10))).toEqual([lines(10)])
    const line = 'x'.repeat(GROUP_FROM_CHARS * 2)
    expect(codeLineGroups(line)).toEqual([line])
    expect(codeLineGroups(`${line}\n`)).toEqual([`${line}\n`])
  })

  it('a finished reply with a 300 kB code block: no text over a group in the DOM, the whole code its text, one header', () => {
    const code = lines(4500)
    expect(code.length).toBeGreaterThan(300_000)
    const { container } = render(<Markdown text={`Intro\n\n\`\`\`ts\n${code}\n\`\`\`\n\nAfter.`} final />)
    const texts: number[] = []
    const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT)
    for (let n = walker.nextNode(); n; n = walker.nextNode()) texts.push(n.nodeValue?.length ?? 0)
    // drawn whole, a piece of the block was one 50,000-character text laid out at once
    expect(Math.max(...texts)).toBeLessThan(LINES_PER_GROUP * 80)
    const groups = container.querySelectorAll('.code-lines')
    expect(groups.length).toBeGreaterThanOrEqual(4500 / LINES_PER_GROUP)
    expect([...groups].every((g) => /^auto \d+(\.\d+)?em$/.test((g as HTMLElement).style.containIntrinsicHeight))).toBe(true)
    // the pieces' code elements hold the code, line ends and all (find, selection and screen readers read it);
    // past PLAIN_TEXT_AFTER_CHARS the rest is plain text, grouped the same way
    const shown = [...container.querySelectorAll('.code-block code')].map((c) => c.textContent).join('\n')
    expect(shown.length).toBeGreaterThan(150_000)
    expect(code.startsWith(shown)).toBe(true)
    expect([...container.querySelectorAll('.md-plain')].map((p) => p.textContent).join('\n')).toContain(code.slice(-2000))
    expect(container.querySelectorAll('.code-head')).toHaveLength(1)
    expect(container.querySelectorAll('button[aria-label="Copy code"], button')).toHaveLength(1)
  })
})
