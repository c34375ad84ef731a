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
  {
    name: 'model',
    description: "Show this session's model and the configured ones, or choose one for its next messages (`default`: back to the default model).",
    category: 'options',
    source: 'native',
    scope: 'text',
    acceptsArgs: true,
    args: [{ name: 'model', description: 'provider/model, default, status or list', type: 'string', required: false }],
  },
]

export type ChatCommandName = 'new' | 'reset' | 'stop' | 'model'

/** Whether `/model …` changes the session (what sessions.patch does) rather than only showing where it stands. */
export function modelCommandChanges(rest: string): boolean {
  return rest.trim() !== '' && !/^(status|list)$/i.test(rest.trim())
}

// C0 controls other than tab, LF and CR, and DEL (the runtime refuses NUL before this runs)
const DISALLOWED_CHAT_CONTROLS = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f]/g

/**
 * chat.send's text as the runtime acts on it: NFC, control characters other than tab and line breaks removed.
 * The gateway's scope check parses commands from this too — else "\u0001/model x" passed it as plain text and
 * the runtime, after removing the \u0001, ran it as the admin-only /model command.
 */
export function normalizeChatText(message: string): string {
  return message.normalize('NFC').replace(DISALLOWED_CHAT_CONTROLS, '')
}

/** The chat command a message is, if it is one (the runtime acts on it; the gateway's scopes gate it). */
export function parseCommand(message: string): { command: ChatCommandName; rest: string } | undefined {
  const m = /^\s*\/(new|reset|stop|model)(?:\s+([\s\S]*))?$/i.exec(message)
  if (!m) return undefined
  const command = m[1].toLowerCase() as ChatCommandName
  const rest = (m[2] ?? '').trim()
  if (command === 'stop' && rest) return undefined // "/stop the music" is a message, not the command
  return { command, rest }
}
