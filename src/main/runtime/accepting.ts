// Messages being accepted: `agent` / `chat.send` between the call and its ack, while they wait for the session's
// accept order and write the session row, attachments and journal line. A run does not exist yet, so an abort
// naming it (or its session) found nothing and the run then went ahead; a retried chat.send found no dedupe
// entry and ran the message twice. Both now wait for the accept instead (it is tracked from the call's first,
// synchronous step, so a frame right behind it on the same connection sees it).

type Kind = 'agent' | 'chat'

interface Pending {
  kind: Kind
  sessionKey: string
  done: Promise<unknown>
}

export class Accepting {
  private readonly byRun = new Map<string, Pending>()

  /** Tracks the accept of `runId` until `done` settles; returns `done`. */
  track<T>(kind: Kind, runId: string, sessionKey: string, done: Promise<T>): Promise<T> {
    const entry: Pending = { kind, sessionKey, done }
    this.byRun.set(runId, entry)
    const clear = () => {
      if (this.byRun.get(runId) === entry) this.byRun.delete(runId)
    }
    done.then(clear, clear)
    return done
  }

  /** The accept of `runId` by a call of this kind, while it is in progress. */
  inProgress(kind: Kind, runId: string): Promise<unknown> | undefined {
    const e = this.byRun.get(runId)
    return e?.kind === kind ? e.done : undefined
  }

  /** The session whose message `runId` is, while it is being accepted. */
  sessionOf(runId: string): string | undefined {
    return this.byRun.get(runId)?.sessionKey
  }

  /**
   * Settles once the accepts in progress now of the session (only `runId`'s when given) have settled, whatever
   * their outcome; undefined when there is none, so an abort with nothing being accepted does not wait at all.
   */
  settled(sessionKey: string, runId?: string): Promise<void> | undefined {
    const waits: Promise<unknown>[] = []
    for (const [id, e] of this.byRun) {
      if (e.sessionKey === sessionKey && (runId === undefined || id === runId)) waits.push(e.done.catch(() => undefined))
    }
    return waits.length > 0 ? Promise.all(waits).then(() => undefined) : undefined
  }
}
