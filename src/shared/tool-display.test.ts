import { describe, expect, it } from 'vitest'
import { argsSummary, firstLine, lastLine, notRunFromText } from './tool-display'

describe('notRunFromText', () => {
  it('tells a call that never ran from one that failed', () => {
    expect(notRunFromText('exec denied by user (command: rm -rf x)')).toBe('denied')
    expect(notRunFromText('  exec approval timed out after 120 s')).toBe('approval-timeout')
    expect(notRunFromText('Operation aborted')).toBe('stopped')
    expect(notRunFromText('exec aborted: the command and its child processes were killed')).toBe('stopped')
    expect(notRunFromText('Command exited with code 3\n\nexec denied by user')).toBeUndefined()
    expect(notRunFromText('')).toBeUndefined()
  })
})

describe('argsSummary', () => {
  it('names what grep and glob look for, not just where', () => {
    expect(argsSummary({ pattern: 'TODO', path: '.' })).toBe('TODO')
    expect(argsSummary({ pattern: '**/*.ts', path: 'src' })).toBe('**/*.ts in src')
    expect(argsSummary({ pattern: 'x\\s+y' })).toBe('x\\s+y')
  })
  it('keeps the command and the path first for the other tools', () => {
    expect(argsSummary({ command: 'ls -la', timeoutSeconds: 5 })).toBe('ls -la')
    expect(argsSummary({ path: 'notes.txt', content: 'a' })).toBe('notes.txt')
  })
})

describe('firstLine / lastLine', () => {
  it('firstLine: the first line that shows something, trimmed, one line, cut', () => {
    expect(firstLine('\n  oldText was not found in "notes.txt".  \nHint: whitespace differs')).toBe('oldText was not found in "notes.txt".')
    expect(firstLine('a\tb')).toBe('a b')
    expect(firstLine('x'.repeat(500), 20)).toBe(`${'x'.repeat(19)}…`)
    expect(firstLine('  \n ')).toBe('')
  })

  it('lastLine: the last line that shows something, in large output too', () => {
    expect(lastLine('tick 1\ntick 2\n\n')).toBe('tick 2')
    expect(lastLine('50%\r75%\r')).toBe('75%')
    const big = Array.from({ length: 50_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n'
    expect(lastLine(big)).toBe('line 50000')
    expect(lastLine('')).toBe('')
  })
})
