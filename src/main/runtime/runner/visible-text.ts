// What the `assistant` stream may show of the assistant message being written (spec §8–§9), so the window,
// the chat events and the CLI agree with the run's payloads: never the silent token (nor its first letters
// while it streams: "N", "NO_" are held until the text can no longer become NO_REPLY), and never a repeat of
// what the message tool already delivered in this run. Whether a reply repeats a sent text is known only when
// it is complete (it may quote the sent text at its end), so after a visible send the run's further text is
// held until its message ends — never shown first and taken back.
import type { ReplyPayload } from '../../../shared/methods'
import { isDuplicateOfSent, isSilentPrefix, isSilentReply } from '../reply'

export type HiddenReason = 'silent' | 'repeat'

export class VisibleText {
  /** how much of the current message's text was emitted (a prefix of it) */
  private shownLength = 0

  /** `sent`: the texts the message tool delivered in this run so far */
  constructor(private readonly sent: () => readonly string[]) {}

  /** a new assistant message starts */
  reset(): void {
    this.shownLength = 0
  }

  /** The text emitted so far turned out not to be the reply (think-tag-text.ts): start over. True when some had been emitted. */
  rewrite(): boolean {
    const shown = this.shownLength > 0
    this.shownLength = 0
    return shown
  }

  /** While streaming: the event to emit for the text so far (cumulative text + its new part), or undefined to hold it. */
  stream(text: string): { text: string; delta: string } | undefined {
    // once some text is out it can no longer become the token: no string work per delta on a long reply
    if (this.shownLength === 0 && (this.sentVisibly() || isSilentPrefix(text))) return undefined
    if (text.length <= this.shownLength) return undefined
    return this.out(text)
  }

  private out(text: string): { text: string; delta: string } {
    const delta = text.slice(this.shownLength)
    this.shownLength = text.length
    return { text, delta }
  }

  /**
   * The message is complete (`finished`: it ended normally, not stopped or failed): why its text is hidden,
   * or undefined when it is visible. A stopped message that got only as far as "NO" is taken as the token.
   */
  hidden(text: string, finished: boolean): HiddenReason | undefined {
    if (isSilentReply(text) || (!finished && isSilentPrefix(text))) return 'silent'
    if (this.sentVisibly() && isDuplicateOfSent(text, this.sent())) return 'repeat'
    return undefined
  }

  /** The rest of a visible message's text not emitted yet (held, or never streamed), or undefined. */
  release(text: string, streamed: string): { text: string; delta: string } | undefined {
    // `streamed`: the text the deltas built; the emitted part is a prefix of it
    if (text.length <= this.shownLength || !text.startsWith(streamed.slice(0, this.shownLength))) return undefined
    return this.out(text)
  }

  private sentVisibly(): boolean {
    return this.sent().some((s) => s.trim() && !isSilentReply(s))
  }
}

/** A finished run that showed the user nothing: no visible payload and no visible message-tool send. */
export function isSilentRun(payloads: readonly ReplyPayload[], sent: readonly string[]): boolean {
  const shown = (t: string | undefined) => !!t?.trim() && !isSilentReply(t)
  return !payloads.some((p) => !p.isReasoning && shown(p.text)) && !sent.some(shown)
}
