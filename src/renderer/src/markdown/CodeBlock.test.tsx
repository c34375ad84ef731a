import { render, waitFor } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { CodeBlock } from './CodeBlock'
import { knownLanguage } from './languages'

// One file of its own: the highlighter is loaded once per module graph, and these tests need it not loaded yet.
describe('code block before and after the highlighter loads', () => {
  it('a streaming block stays plain and does not load the highlighter', async () => {
    const { container } = render(<CodeBlock code={'const a = 1'} lang="ts" streaming />)
    await new Promise((r) => setTimeout(r, 50))
    expect(container.querySelector('code span')).toBeNull()
    expect(container.querySelector('.code-lang')?.textContent).toBe('ts')
  })

  it('shows plain code at once, then the same code highlighted once the chunk is here', async () => {
    const { container } = render(<CodeBlock code={'const x: number = 1'} lang="TS extra" />)
    const code = container.querySelector('code')!
    expect(code.querySelector('span')).toBeNull()
    expect(code.textContent).toBe('const x: number = 1')
    expect(container.querySelector('.code-lang')?.textContent).toBe('ts')
    await waitFor(() => expect(code.querySelector('.hljs-keyword')?.textContent).toBe('const'))
    expect(code.textContent).toBe('const x: number = 1')
    expect(code.className).toBe('hljs language-ts')
    expect(container.querySelector('.code-lang')?.textContent).toBe('ts')
  })

  it('an unknown language is never highlighted and keeps its own label', () => {
    const { container } = render(<CodeBlock code={'x := 1'} lang="Zig" />)
    expect(container.querySelector('code span')).toBeNull()
    expect(container.querySelector('.code-lang')?.textContent).toBe('Zig')
    expect(knownLanguage('Zig')).toBeUndefined()
  })
})
