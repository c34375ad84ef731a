// A request that cannot fit the model's context window, even after compaction, is not sent: a server would
// reject it, or cut it silently, and pi-ai would ask for a reply of at most 1 token (it floors the output
// budget it clamps to what the window leaves). The run fails with this error instead (OpenClaw: its context
// overflow precheck), which names the estimate and the window.
import { CHARS_PER_TOKEN } from './estimate'

/** Tokens a request must leave free for the reply: 1024, or an eighth of a small window. */
export function replyRoom(contextWindow: number): number {
  return Math.min(1024, Math.floor(contextWindow / 8))
}

/** Largest request (estimated tokens) a model with this window is sent; Infinity when the window is unknown. */
export function requestLimit(contextWindow: number): number {
  return contextWindow > 0 ? contextWindow - replyRoom(contextWindow) : Infinity
}

export class ContextTooLargeError extends Error {
  /** the runner fails the model call with this error instead of sending the request (runner/hooks.ts) */
  readonly refusesRequest = true
  constructor(
    readonly tokens: number,
    readonly contextWindow: number,
    /** the new message cannot fit by itself (with the system prompt), or the conversation after compaction */
    readonly part: 'message' | 'conversation' = 'message',
  ) {
    super(
      part === 'message'
        ? `message too large for this model's context window: ~${tokens} tokens, window ${contextWindow} ` +
            `(about ${tokens * CHARS_PER_TOKEN} characters where ${requestLimit(contextWindow) * CHARS_PER_TOKEN} fit). ` +
            'Send a shorter message or use a model with a larger context window.'
        : `conversation too large for this model's context window even after compaction: ~${tokens} tokens, window ${contextWindow}. ` +
            'Start a new session (/new) or use a model with a larger context window.',
    )
    this.name = 'ContextTooLargeError'
  }
}
