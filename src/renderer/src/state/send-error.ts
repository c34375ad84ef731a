// Why a message was not sent, in plain words, and whether sending it again could work. The gateway's refusals
// are worded for developers ("invalid chat.send params: /message: must not have more than 1000000 characters").
import { MAX_MESSAGE_CHARS } from '../../../shared/message-limit'
import type { ErrorShape } from '../../../shared/methods'

export interface SendRefusal {
  text: string
  /** a Retry of the same message could succeed (a lost connection, a busy runtime), unlike a refused one */
  retryable: boolean
}

const fmt = (n: number) => n.toLocaleString('en-US')

/** "The message is too long: …" — also what the composer says before sending. */
export const tooLongText = (over: number, max = MAX_MESSAGE_CHARS) =>
  `The message is too long: ${fmt(over)} character${over === 1 ? '' : 's'} over the limit of ${fmt(max)}. Shorten it or split it into several messages.`

export function describeSendError(e: ErrorShape | unknown): SendRefusal {
  if (!e || typeof e !== 'object' || !('message' in e)) return { text: String(e), retryable: true }
  const err = e as ErrorShape
  const message = String(err.message)
  const params = /^invalid [\w.]+ params: (.*)$/s.exec(message)
  if (params) {
    const tooLong = /\/message: must not have more than (\d+) characters/.exec(params[1])
    if (tooLong) return { text: `The message is too long: the limit is ${fmt(Number(tooLong[1]))} characters. Shorten it or split it into several messages.`, retryable: false }
    return { text: `The gateway refused the message as malformed (${params[1]}).`, retryable: false }
  }
  if (err.code === 'INVALID_REQUEST' || err.code === 'FORBIDDEN' || err.code === 'NOT_FOUND') return { text: message, retryable: false }
  if (err.code === 'UNAVAILABLE' && /not connected|bridge closed|connection (closed|lost)/i.test(message))
    return { text: 'The connection to the gateway was lost.', retryable: true }
  return { text: message, retryable: true }
}
