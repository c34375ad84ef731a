import { describe, expect, it } from 'vitest'
import { looksBinary } from './result'

describe('looksBinary', () => {
  it('asks the same question of bytes and of the text they decode to (bootstrap files are read as text)', () => {
    const samples = [Buffer.from('plain text\n'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0x0d]), Buffer.from('é'.repeat(100) + '\u0000')]
    for (const bytes of samples) expect(looksBinary(bytes.toString('utf8'))).toBe(looksBinary(bytes))
    expect(looksBinary('PNG\u0000IHDR')).toBe(true)
    expect(looksBinary(Buffer.from('PNG\u0000IHDR'))).toBe(true)
    expect(looksBinary('no nul here')).toBe(false)
  })

  it('looks at the first 8 KiB only: bytes for bytes, characters for text', () => {
    const late = 'x'.repeat(8192) + '\u0000'
    expect(looksBinary(late)).toBe(false)
    expect(looksBinary(Buffer.from(late))).toBe(false)
    expect(looksBinary(late.slice(1))).toBe(true)
    // 4,000 two-byte characters then a NUL: the NUL is the 4,001st character but byte 8,000
    const wide = 'é'.repeat(4000) + '\u0000'
    expect(looksBinary(wide)).toBe(true)
    expect(looksBinary(Buffer.from(wide))).toBe(true)
  })
})
