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

  it('the approvals list and the other sessions\' notice share one box rule (no copy of it to drift apart)', () => {
    const box = ['width', 'max-width', 'margin', 'border', 'border-radius', 'background']
    expect(propertiesApart(styles, ['.approval-batch', '.other-approvals'], box)).toEqual([])
    expect(propertiesApart('.a {\n  width: 1px;\n}\n.b {\n  width: 1px;\n}\n', ['.a', '.b'], ['width'])).toEqual(['width'])
    expect(propertiesApart('.a,\n.b {\n  width: 1px;\n}\n', ['.a', '.b'], ['width'])).toEqual([])
  })
})

/** The `props` that every one of `selectors` declares, but not all in one rule (top-level rules only). */
function propertiesApart(css: string, selectors: string[], props: string[]): string[] {
  const src = css.replace(/\/\*[\s\S]*?\*\//g, '')
  const rules = [...src.matchAll(/(^|\n)([^{}@]+)\{([^{}]*)\}/g)].map((m) => ({
    selectors: m[2].split(',').map((x) => x.trim()),
    props: new Set([...m[3].matchAll(/(?:^|;)\s*([a-z-]+)\s*:/g)].map((p) => p[1])),
  }))
  return props.filter((prop) => {
    const owners = rules.filter((r) => r.props.has(prop) && selectors.some((sel) => r.selectors.includes(sel)))
    const all = selectors.every((sel) => owners.some((r) => r.selectors.includes(sel)))
    return all && !owners.some((r) => selectors.every((sel) => r.selectors.includes(sel)))
  })
}
