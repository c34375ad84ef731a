// Scope names are spelled once (scopes.ts): a check written as a literal — hello's admin-only paths were
// `'operator.admin'` — keeps compiling when the name or the constant changes, and a typo in one is silently
// never true. Tests may spell them out (they state what goes over the wire).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = path.resolve(__dirname, '../..')
const LITERAL = /(['"`])operator\.(admin|read|write|approvals|pairing)\1/

function sources(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) sources(p, out)
    else if (/\.tsx?$/.test(e.name) && !/\.(test|spec)\.tsx?$/.test(e.name)) out.push(p)
  }
  return out
}

describe('operator scope names', () => {
  it('appear as string literals only in src/shared/scopes.ts', () => {
    const own = path.join(SRC, 'shared', 'scopes.ts')
    const found: string[] = []
    for (const file of sources(SRC)) {
      if (file === own) continue
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (LITERAL.test(line)) found.push(`${path.relative(SRC, file)}:${i + 1}: ${line.trim()}`)
        })
    }
    expect(found).toEqual([])
  })
})
