// Child-process worker for cross-process tests (run with `node --import tsx`).
//   store-child.ts incr <stateDir> <agentId> <key> <count> [startAtMs] [defer]
//                                                              → <count> read-modify-write increments, started
//                                                                together with sibling children at startAtMs
//   store-child.ts hold <file> [ms]                            → takes <file>.lock, prints "locked", holds it
//   store-child.ts append <file> <count>                       → appends <count> transcript lines, forever if 0
//   store-child.ts rows <stateDir> <agentId>                   → prints the stored sessions as rows (JSON)
import { toSessionRow } from '../session-row'
import { SessionStore } from '../session-store'
import { Transcript } from '../transcript'
import { acquireWriteLock } from '../write-lock'

const [cmd, ...args] = process.argv.slice(2)

async function main(): Promise<void> {
  if (cmd === 'incr') {
    const [stateDir, agentId, key, count, startAt, mode] = args
    // defer: updates resolve at once and are group-committed; the last ones are written by the exit hook
    const store = new SessionStore({ stateDir, agentId, fsync: false, defer: mode === 'defer', deferMs: 3 })
    store.list() // warm up before the start line so the children really overlap
    const wait = Number(startAt ?? 0) - Date.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    for (let i = 0; i < Number(count); i++) {
      await store.update(key, (cur) => ({
        sessionId: cur?.sessionId ?? 'shared',
        updatedAt: Date.now(),
        inputTokens: (cur?.inputTokens ?? 0) + 1,
      }))
    }
    return
  }
  if (cmd === 'hold') {
    const [file, ms] = args
    await acquireWriteLock(file, { timeoutMs: 5000 })
    process.stdout.write('locked\n')
    await new Promise((r) => setTimeout(r, Number(ms ?? 60_000)))
    return
  }
  if (cmd === 'append') {
    const [file, count] = args
    const t = new Transcript(file)
    const n = Number(count)
    for (let i = 0; n === 0 || i < n; i++) {
      await t.append({ type: 'message', id: `m${i}`, timestamp: Date.now(), message: { role: 'user', content: 'x'.repeat(2000) + i } })
      if (i === 10) process.stdout.write('appending\n')
    }
    return
  }
  if (cmd === 'rows') {
    const [stateDir, agentId] = args
    const store = new SessionStore({ stateDir, agentId })
    process.stdout.write(JSON.stringify(store.list().map(([key, e]) => toSessionRow(key, e, agentId))) + '\n')
    return
  }
  throw new Error(`unknown command ${cmd}`)
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(String(err?.stack ?? err) + '\n')
    process.exit(1)
  },
)
