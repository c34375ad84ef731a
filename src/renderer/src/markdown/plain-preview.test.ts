import { describe, expect, it } from 'vitest'
import { plainPreview } from './plain-preview'

describe('plainPreview', () => {
  it('reads markdown as its text on one line', () => {
    expect(plainPreview('Sure — here is a **short** answer.\n\n- one\n- two')).toBe('Sure — here is a short answer. one two')
    expect(plainPreview('# Title\n> quoted _word_ and *this*\n1. first\n2) second')).toBe('Title quoted word and this first second')
    expect(plainPreview('See [the docs](https://x.example/a_b) or ![diagram](d.png); run `npm test`.')).toBe('See the docs or diagram; run npm test.')
    expect(plainPreview('```ts\nconst a = 1\n```')).toBe('const a = 1')
    expect(plainPreview('- [x] done ~~not~~')).toBe('done not')
  })

  it('leaves what only looks like syntax alone', () => {
    expect(plainPreview('snake_case_name and 2 * 3 * 4')).toBe('snake_case_name and 2 * 3 * 4')
    expect(plainPreview('a ** b')).toBe('a ** b')
    expect(plainPreview('')).toBe('')
  })
})
