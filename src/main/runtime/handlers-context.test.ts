import { describe, expect, it } from 'vitest'
import { CHAT_COMMANDS, parseCommand } from './handlers-context'

describe('chat commands', () => {
  it('commands.list names exactly the commands a message is parsed as', () => {
    for (const c of CHAT_COMMANDS) {
      expect(parseCommand(`/${c.name}`)?.command, c.name).toBe(c.name)
      // one that takes no text is a message when text follows it
      expect(parseCommand(`/${c.name} more words`)?.command, c.name).toBe(c.acceptsArgs ? c.name : undefined)
    }
    for (const other of ['/compact', '/models x', '/think high', '/status', 'new', '/newer']) expect(parseCommand(other), other).toBeUndefined()
  })
})
