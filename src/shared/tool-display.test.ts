import { describe, expect, it } from 'vitest'
import { notRunFromText } from './tool-display'

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
