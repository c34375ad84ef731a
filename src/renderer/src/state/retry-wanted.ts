// Runs whose "Stop and retry" gave up waiting for the stop (stop-and-retry.ts): the user asked for the message to
// go again, so once the run has stopped its footer offers Retry, not Regenerate. That wish is the window's, not the
// runtime's (a plain Stop ends a run the same way), and a history rebuild — the refetch at a run's end, a
// reconnect, a reloaded window — rebuilds the run from chat.history without it: kept here, in localStorage, and
// handed to each rebuild (the reducer's `hydrate` `retryWanted`). One run per session (only the last turn can be
// retried), bounded.

const KEY = 'loopdesk.retryWanted'
const SESSIONS = 50

export class RetryWanted {
  private bySession: Map<string, string>

  constructor(private readonly storage: Pick<Storage, 'getItem' | 'setItem'> | undefined = globalThis.localStorage) {
    this.bySession = new Map(Object.entries(this.read()))
  }

  /** the run of `sessionKey` the user wants sent again once stopped, if any */
  get(sessionKey: string): string | undefined {
    return this.bySession.get(sessionKey)
  }

  set(sessionKey: string, runId: string): void {
    this.bySession.delete(sessionKey) // re-inserted last: the most recent sessions are kept
    this.bySession.set(sessionKey, runId)
    while (this.bySession.size > SESSIONS) this.bySession.delete(this.bySession.keys().next().value as string)
    this.write()
  }

  /** done with: the retry was sent */
  delete(sessionKey: string): void {
    if (this.bySession.delete(sessionKey)) this.write()
  }

  private read(): Record<string, string> {
    try {
      const raw = this.storage?.getItem(KEY)
      const v = raw ? (JSON.parse(raw) as unknown) : {}
      if (!v || typeof v !== 'object' || Array.isArray(v)) return {}
      return Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'))
    } catch {
      return {}
    }
  }

  private write(): void {
    try {
      this.storage?.setItem(KEY, JSON.stringify(Object.fromEntries(this.bySession)))
    } catch {
      // storage full or disabled: after a reloaded window that run offers Regenerate, nothing worse
    }
  }
}
