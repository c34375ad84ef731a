// The commands a chat message can be: one list for commands.list, the runtime's tests and the composer's menu.
import type { ChatCommandInfo } from './methods'

/**
 * What `parseCommand` recognizes in a chat message, as
 * commands.list describes it and the composer offers it (handlers-context.test keeps the two in step).
 */
export const CHAT_COMMANDS: readonly ChatCommandInfo[] = [
  {
    name: 'new',
    description: 'Start a new conversation in this session (the old one is archived); text after it is the first message.',
    category: 'session',
    source: 'native',
    scope: 'text',
    acceptsArgs: true,
    args: [{ name: 'message', description: 'the first message of the new conversation', type: 'string', required: false }],
  },
  {
    name: 'reset',
    description: 'Reset this session: the same as /new.',
    category: 'session',
    source: 'native',
    scope: 'text',
    acceptsArgs: true,
    args: [{ name: 'message', description: 'the first message after the reset', type: 'string', required: false }],
  },
  {
    name: 'stop',
    description: "Stop this session's run and drop the messages queued behind it.",
    category: 'session',
    source: 'native',
    scope: 'text',
    acceptsArgs: false,
  },
]

/** The chat command a message is, if it is one (the runtime acts on it; the gateway's scopes gate it). */
export function parseCommand(message: string): { command: 'new' | 'reset' | 'stop'; rest: string } | undefined {
  const m = /^\s*\/(new|reset|stop)(?:\s+([\s\S]*))?$/i.exec(message)
  if (!m) return undefined
  const command = m[1].toLowerCase() as 'new' | 'reset' | 'stop'
  const rest = (m[2] ?? '').trim()
  if (command === 'stop' && rest) return undefined // "/stop the music" is a message, not the command
  return { command, rest }
}
