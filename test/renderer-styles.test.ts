// The renderer's styles.css is plain CSS: a rule left unclosed silently nests every rule after it (the build reads it as CSS
// nesting), so those rules stop matching — as the Edit-message and tool-card rules did after a merge.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const styles = readFileSync(new URL('../src/renderer/src/styles.css', import.meta.url), 'utf8')

/** Each rule opened inside another that is not an @-block (media, supports, keyframes…), with its line. */
function nestedRules(css: string): string[] {
  const src = css
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .replace(/"[^"\n]*"|'[^'\n]*'/g, (s) => ' '.repeat(s.length))
  const stack: boolean[] = [] // per open block: is it an @-block
  const found: string[] = []
  let start = 0
  for (let i = 0; i < src.length; i++) {
    const c = src[i]
    if (c === '{') {
      const head = src.slice(start, i).trim()
      if (stack.length && !stack[stack.length - 1])
        found.push(`line ${src.slice(0, i).split('\n').length}: ${head}`)
      stack.push(head.startsWith('@'))
      start = i + 1
    } else if (c === '}') {
      stack.pop()
      start = i + 1
    } else if (c === ';') start = i + 1
  }
  if (stack.length) found.push(`${stack.length} block(s) still open at the end`)
  return found
}

describe('styles.css', () => {
  it('has no rule nested in another rule, and every block closed', () => {
    expect(styles).toContain('.tool-head:hover {')
    expect(nestedRules(styles)).toEqual([])
  })

  it('the check sees an unclosed rule', () => {
    expect(nestedRules('.a {\n  color: red;\n\n.b {\n  color: blue;\n}\n')).toEqual([
      'line 4: .b',
      '1 block(s) still open at the end',
    ])
    expect(nestedRules('@media (x) {\n.a { color: red }\n}\n')).toEqual([])
  })
})
