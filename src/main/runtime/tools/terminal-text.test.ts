import { describe, expect, it } from 'vitest'
import { terminalText } from './terminal-text'

describe('terminalText', () => {
  it('leaves plain text (tabs and newlines included) as it is', () => {
    const s = 'a\tb\nc\n'
    expect(terminalText(s)).toBe(s)
  })

  it('drops colour and cursor escapes and OSC links', () => {
    expect(terminalText('\u001b[31merror\u001b[0m: \u001b[1mbad\u001b[22m\n')).toBe('error: bad\n')
    expect(terminalText('\u001b]8;;https://x.test\u001b\\link\u001b]8;;\u001b\\ and \u001b]0;title\u0007done')).toBe('link and done')
    expect(terminalText('\u001b[2K\u001b[1Gready')).toBe('ready')
  })

  it('a carriage return overwrites its line, as a terminal shows a progress bar; CRLF is a newline', () => {
    expect(terminalText('downloading 10%\rdownloading 50%\rdownloading 100%\nok\r\n')).toBe('downloading 100%\nok\n')
    expect(terminalText('working...\rdone')).toBe('doneing...')
  })

  it('overwrites in linear time: a long line followed by many short rewrites', () => {
    expect(terminalText('abcdef\rXY\rZ\r\rQRS')).toBe('QRSdef')
    expect(terminalText('ab\rlonger\rX')).toBe('Xonger')
    // rebuilt at every \r this took ~20 s (and half a second at the 100 kB default output cap, per update)
    const hostile = 'a'.repeat(200_000) + '\rb'.repeat(100_000)
    const t0 = performance.now()
    expect(terminalText(hostile)).toBe('b' + 'a'.repeat(199_999))
    expect(performance.now() - t0).toBeLessThan(1000)
  })

  it('removes other control characters and says how many', () => {
    expect(terminalText('\u0000'.repeat(3000))).toBe('[3000 control characters removed (binary output?)]')
    expect(terminalText('a\u0007b\n')).toBe('ab\n[1 control character removed (binary output?)]')
  })
})
