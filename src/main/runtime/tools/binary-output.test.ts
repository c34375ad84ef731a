import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { BinarySniffer, binaryNote } from './binary-output'

describe('BinarySniffer', () => {
  it('random bytes are binary, even without a NUL in them', () => {
    let bytes = randomBytes(3000)
    bytes = Buffer.from(bytes.map((b) => b || 1))
    const s = new BinarySniffer()
    expect(s.feed(bytes)).toBe(true)
    expect(s.hidden).toBe(3000)
  })

  it('text, UTF-8 split across chunks, colours and a little Latin-1 stay text', () => {
    const s = new BinarySniffer()
    const utf8 = Buffer.from('héllo wörld — ✓ 日本語 '.repeat(50))
    for (let i = 0; i < utf8.length; i += 7) expect(s.feed(utf8.subarray(i, i + 7))).toBe(false)
    expect(s.feed(Buffer.from('\u001b[32mgreen\u001b[0m\r\n 10%\r100%\n\t'))).toBe(false)
    expect(s.feed(Buffer.from('caf\xe9 cr\xe8me br\xfbl\xe9e, ', 'latin1'))).toBe(false)
    expect(s.hidden).toBe(0)
  })

  it('a NUL makes a stream binary from that chunk on, also after 8 KiB of text', () => {
    const s = new BinarySniffer()
    expect(s.feed(Buffer.from('a'.repeat(10_000)))).toBe(false)
    expect(s.feed(Buffer.from([0x41, 0, 0x42]))).toBe(true)
    expect(s.feed(Buffer.from('more'))).toBe(true)
    expect(s.hidden).toBe(7)
  })

  it('a few odd bytes at the start decide nothing yet', () => {
    const s = new BinarySniffer()
    expect(s.feed(Buffer.from([0xff, 0xfe]))).toBe(false)
    expect(s.feed(Buffer.from('plain text that follows, long enough to outweigh two odd bytes\n'))).toBe(false)
  })

  it('notes each binary stream with its byte count', () => {
    const stdout = new BinarySniffer()
    const stderr = new BinarySniffer()
    expect(binaryNote({ stdout, stderr })).toBe('')
    stdout.feed(Buffer.alloc(3000))
    expect(binaryNote({ stdout, stderr })).toBe('[binary output on stdout: 3,000 bytes, not shown]')
  })
})
