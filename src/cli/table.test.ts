import { describe, expect, it } from 'vitest'
import { sizeText, tableLines, terminalText } from './table'

describe('tableLines', () => {
  it('pads columns to the widest cell, leaves the last unpadded', () => {
    expect(tableLines(['A', 'BB'], [['long cell', 'x'], ['s', 'yy']])).toEqual(['A          BB', 'long cell  x', 's          yy'])
  })

  it('a title carrying escape sequences or line breaks prints as one plain line (nothing reaches the terminal as a control)', () => {
    const [, row] = tableLines(['KEY', 'TITLE'], [['k', 'evil\u001b]0;pwned\u0007\u001b[2Jtitle\nnext\u009b31m']])
    expect(row).toBe('k    evil ]0;pwned  [2Jtitle next 31m')
    expect(row).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
  })

  it('sizes read as a person reads them', () => {
    expect(sizeText(1)).toBe('1 KB')
    expect(sizeText(3.4 * 1024 * 1024)).toBe('3.4 MB')
  })
})

describe('terminalText', () => {
  it('keeps lines and tabs, drops escape sequences’ control bytes and bare carriage returns', () => {
    // OSC 52 (set the clipboard), a screen clear, a CSI via C1, a bell, a carriage return that would overwrite the line
    const reply = 'line one\r\n\tindented\u001b]52;c;ZXZpbA==\u0007 clear\u001b[2J\u009b1m done\rfake'
    expect(terminalText(reply)).toBe('line one\r\n\tindented]52;c;ZXZpbA== clear[2J1m donefake')
  })
})
