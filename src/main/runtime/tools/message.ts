// `message`: deliver visible text to the session right away (mid-run progress, or the reply itself).
// The runner records these sends so the final reply does not repeat them.
import Type from 'typebox'
import { isSilentReply } from '../reply/silent'
import { textResult, throwIfAborted } from './result'
import { defineTool } from './spec'

export const MESSAGE_MAX_CHARS = 20_000

const params = Type.Object({
  text: Type.String({ description: 'The message to show the user now' }),
})

export const messageTool = defineTool(
  {
    name: 'message',
    readOnly: true,
    label: 'Send message',
    description:
      'Send a message to the user immediately, before the run finishes (progress notes, or the answer itself). ' +
      'Do not repeat a sent message in your final reply; reply NO_REPLY if nothing more needs saying.',
    parameters: params,
  },
  async (ctx, p, signal) => {
    throwIfAborted(signal, 'message')
    const text = p.text.trim()
    if (!text) throw new Error('text must not be empty')
    if (text.length > MESSAGE_MAX_CHARS) throw new Error(`text is too long (${text.length} chars, limit ${MESSAGE_MAX_CHARS})`)
    // the silent token is not a message: nothing reaches the user, and the model is told so, not "sent"
    if (isSilentReply(text)) {
      return textResult('Nothing was sent: NO_REPLY is the silent token, not a message. To say nothing more, end your reply with NO_REPLY.', {
        sent: false,
        chars: 0,
      })
    }
    // false: a message_sending plugin hook cancelled the send
    if ((await ctx.sendMessage(text)) === false) {
      return textResult('The message was not sent (cancelled by a plugin).', { sent: false, chars: text.length })
    }
    return textResult(`Message sent to the user (${text.length} chars).`, { sent: true, chars: text.length })
  },
)
