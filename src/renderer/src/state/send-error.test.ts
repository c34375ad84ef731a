import { describe, expect, it } from 'vitest'
import { describeSendError } from './send-error'

describe('describeSendError', () => {
  it('says a schema refusal in plain words and offers no retry', () => {
    expect(describeSendError({ code: 'INVALID_REQUEST', message: 'invalid chat.send params: /message: must not have more than 1000000 characters' })).toEqual({
      text: 'The message is too long: the limit is 1,000,000 characters. Shorten it or split it into several messages.',
      retryable: false,
    })
    expect(describeSendError({ code: 'INVALID_REQUEST', message: 'invalid chat.send params: /idempotencyKey: must be string' })).toEqual({
      text: 'The gateway refused the message as malformed (/idempotencyKey: must be string).',
      retryable: false,
    })
    expect(describeSendError({ code: 'NOT_FOUND', message: 'unknown session: x' }).retryable).toBe(false)
  })

  it('a lost connection or a busy runtime may work on a retry', () => {
    expect(describeSendError({ code: 'UNAVAILABLE', message: 'not connected to the gateway' })).toEqual({ text: 'The connection to the gateway was lost.', retryable: true })
    expect(describeSendError({ code: 'UNAVAILABLE', message: 'shutting down', retryable: true })).toEqual({ text: 'shutting down', retryable: true })
    expect(describeSendError(new Error('socket hang up')).retryable).toBe(true)
  })
})
