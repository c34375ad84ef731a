// A hook handler that loops forever hangs the app with no word: timeSync (timeout.ts) can only report a long
// synchronous stretch once it returns, and no timer on the main thread fires meanwhile. A small worker thread
// watches instead: the main thread marks each timed handler call in shared memory (two atomic stores, no message
// per call; a handler's name is posted once), and the worker, whose timers run while the main thread is stuck,
// writes one line to stderr naming the handler once a call has run past its limit — so the plugin to remove is
// known while the app hangs. It cannot stop the handler (nothing can, in-process: see timeout.ts). Started on
// the first timed call, unref'd: it never keeps a process alive.
import { Worker } from 'node:worker_threads'

// [0] the running call's handler id (0: none), [1] a call counter (a new call of the same handler is a new
// stretch), [2] that call's limit in ms
const SLOTS = 3

const WORKER = `
const { workerData, parentPort } = require('node:worker_threads')
const fs = require('node:fs')
const shared = new Int32Array(workerData.buffer)
const names = new Map()
parentPort.on('message', (m) => names.set(m.id, m.name))
let call = 0, since = 0, told = 0
setInterval(() => {
  const id = Atomics.load(shared, 0)
  const c = Atomics.load(shared, 1)
  if (id === 0) { call = 0; return }
  const now = Date.now()
  if (c !== call) { call = c; since = now; return }
  const limit = Atomics.load(shared, 2)
  if (told === c || now - since < limit) return
  told = c
  const name = names.get(id) || 'a hook handler'
  try {
    fs.writeSync(2, '[hooks] ' + name + ' has been running synchronously for over ' + (now - since) + ' ms (limit ' + limit + ' ms) and blocks every session and the gateway until it returns; it cannot be cut off — if it never does, stop Loopdesk and remove or fix that hook\\n')
  } catch {}
}, workerData.pollMs)
`

let state: { shared: Int32Array; worker: Worker; ids: Map<string, number> } | undefined | null
let calls = 0
let pollMs = 250

/** For tests: how often the worker looks (default 250 ms); call before the first timed handler. */
export function setStallPollMs(ms: number): void {
  pollMs = ms
}

function watchdog(): typeof state {
  if (state !== undefined) return state
  try {
    const buffer = new SharedArrayBuffer(SLOTS * 4)
    // plain JavaScript: none of the process's loaders (tsx in development) needed, so it boots fast
    const worker = new Worker(WORKER, { eval: true, workerData: { buffer, pollMs }, execArgv: [] })
    worker.unref()
    // a worker that cannot start (a sandbox without threads) leaves the calls unwatched, as before
    worker.on('error', () => (state = null))
    state = { shared: new Int32Array(buffer), worker, ids: new Map() }
  } catch {
    state = null
  }
  return state
}

/** Marks the start of a timed synchronous handler call; returns the function that marks its end. */
export function watchCall(name: string, limitMs: number): () => void {
  const w = watchdog()
  if (!w) return () => {}
  let id = w.ids.get(name)
  if (id === undefined) {
    if (w.ids.size >= 10_000) w.ids.clear() // names come from loaded plugins: a bound only against misuse
    w.ids.set(name, (id = w.ids.size + 1))
    w.worker.postMessage({ id, name })
  }
  // a handler that runs another hook synchronously: when the inner call ends, the outer one is watched again
  const outer = [Atomics.load(w.shared, 0), Atomics.load(w.shared, 1), Atomics.load(w.shared, 2)] as const
  Atomics.store(w.shared, 0, 0)
  Atomics.store(w.shared, 2, Math.max(1, Math.min(2 ** 31 - 1, Math.round(limitMs))))
  Atomics.store(w.shared, 1, (calls = (calls + 1) | 0))
  Atomics.store(w.shared, 0, id)
  return () => {
    Atomics.store(w.shared, 0, 0)
    Atomics.store(w.shared, 2, outer[2])
    Atomics.store(w.shared, 1, outer[1])
    Atomics.store(w.shared, 0, outer[0])
  }
}
