import { describe, expect, it } from 'vitest'
import { argsSummary, notRunFromText } from './tool-display'

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
