// What the time limit cannot stop — code after a handler's first await, a plugin module loaded by import() (top-level
// await) — can still hang the app, and then no timer of the main thread fires to say so. A small worker thread
// watches instead: while such work is pending, the main thread beats a counter in shared memory and lists what is
// pending (a slot per call: its name's id and its limit; a name is posted once); the worker, whose timers run while
// the main thread is stuck, writes one line straight to stderr (fd 2, not through the main thread) once the beat
// has stopped for longer than a pending call's limit — naming what was pending, so the plugin to remove is known
// while the app hangs. It stops nothing. Started on first use, unref'd: it never keeps a process alive; a worker
// that cannot start leaves things unwatched, as before. While nothing is pending it sleeps (Atomics.waitAsync on
// the pending count, no timer): a long-lived app with plugins has no thread waking a few times a second for nothing.
// node:timers' own: a test's fake timers (which replace the globals) must not freeze the beat
import { clearInterval, setInterval } from 'node:timers'
import { Worker } from 'node:worker_threads'

const SLOTS = 32
// [0] the main thread's beat; [1] depth of vm-bounded calls running (a stall there is V8's watchdog's to end);
// [2] calls pending (the worker sleeps while 0); [3] the worker's looks (tests: none while idle);
// then per slot: [4 + 2i] name id (0: free), [5 + 2i] limit in ms
const BASE = 4
const WORDS = BASE + SLOTS * 2
const BEAT_MS = 100

const WORKER = `
const { workerData, parentPort } = require('node:worker_threads')
const fs = require('node:fs')
const shared = new Int32Array(workerData.buffer)
const names = new Map()
parentPort.on('message', (m) => names.set(m.id, m.name))
let beat = -1, beatAt = Date.now(), told = false, timer
// asleep until something is pending (a count already above 0 wakes it at once)
function sleep() {
  const w = Atomics.waitAsync(shared, 2, 0)
  if (w.async) w.value.then(wake)
  else wake()
}
function wake() {
  beat = Atomics.load(shared, 0); beatAt = Date.now(); told = false
  timer = setInterval(look, workerData.pollMs)
}
function look() {
  Atomics.add(shared, 3, 1)
  if (Atomics.load(shared, 2) === 0) { clearInterval(timer); sleep(); return }
  const now = Date.now()
  const b = Atomics.load(shared, 0)
  if (b !== beat || Atomics.load(shared, 1) > 0) { beat = b; beatAt = now; told = false }
  const pending = []
  for (let i = 0; i < ${SLOTS}; i++) {
    const id = Atomics.load(shared, ${BASE} + 2 * i)
    if (id) pending.push({ id, limit: Atomics.load(shared, ${BASE + 1} + 2 * i) })
  }
  if (pending.length === 0) { beatAt = now; return }
  const stalled = now - beatAt
  const over = pending.filter((p) => stalled > p.limit)
  if (told || over.length === 0) return
  told = true
  const what = [...new Set(over.map((p) => names.get(p.id) || 'a hook'))].join('; ')
  const limit = Math.min(...over.map((p) => p.limit))
  try {
    fs.writeSync(2, '[hooks] the app has been blocked for over ' + stalled + ' ms (limit ' + limit + ' ms) while this had not finished: ' + what +
      ' — code after a handler\\'s await, or a module top level loaded without a time limit, cannot be stopped; if it does not end, stop Loopdesk and remove or fix that plugin or hook\\n')
  } catch {}
}
sleep()
`

let state: { shared: Int32Array; worker: Worker; ids: Map<string, number> } | undefined | null
let pollMs = 250
let pending = 0
let beating: ReturnType<typeof setInterval> | undefined

/** For tests: how often the worker looks (default 250 ms); call before the first watched call. */
export function setStallPollMs(ms: number): void {
  pollMs = ms
}

function watchdog(): typeof state {
  if (state !== undefined) return state
  try {
    const buffer = new SharedArrayBuffer(WORDS * 4)
    // plain JavaScript: none of the process's loaders (tsx in development) needed, so it boots fast
    const worker = new Worker(WORKER, { eval: true, workerData: { buffer, pollMs }, execArgv: [] })
    worker.unref()
    worker.on('error', () => (state = null))
    state = { shared: new Int32Array(buffer), worker, ids: new Map() }
  } catch {
    state = null
  }
  return state
}

/** How often the worker has looked at the pending calls so far (tests: it does not look while none is pending). */
export function stallWatchdogLooks(): number | undefined {
  return state ? Atomics.load(state.shared, 3) : undefined
}

/** Marks a vm-bounded call as running (only while the watchdog is up: nothing to tell it otherwise). */
export function enterBounded(): () => void {
  const w = state
  if (!w) return () => {}
  Atomics.add(w.shared, 1, 1)
  return () => void Atomics.sub(w.shared, 1, 1)
}

/**
 * Marks `name` as pending until the returned function is called: should the main thread stop running for longer
 * than `limitMs` meanwhile, the watchdog names it on stderr. limitMs <= 0 or non-finite: not watched.
 */
export function watchPending(name: string, limitMs: number): () => void {
  if (!(limitMs > 0) || !Number.isFinite(limitMs)) return () => {}
  const w = watchdog()
  if (!w) return () => {}
  let slot = -1
  for (let i = 0; i < SLOTS && slot < 0; i++) if (Atomics.load(w.shared, BASE + 2 * i) === 0) slot = i
  if (slot < 0) return () => {} // all slots taken (handlers that never settle hold theirs): unwatched
  let id = w.ids.get(name)
  if (id === undefined) {
    if (w.ids.size >= 10_000) w.ids.clear() // names come from loaded plugins: a bound only against misuse
    w.ids.set(name, (id = w.ids.size + 1))
    w.worker.postMessage({ id, name })
  }
  Atomics.store(w.shared, BASE + 1 + 2 * slot, Math.min(2 ** 31 - 1, Math.max(1, Math.round(limitMs))))
  Atomics.store(w.shared, BASE + 2 * slot, id)
  if (pending++ === 0) {
    beating = setInterval(() => Atomics.add(w.shared, 0, 1), BEAT_MS)
    beating.unref()
  }
  Atomics.add(w.shared, 2, 1)
  Atomics.notify(w.shared, 2)
  let done = false
  return () => {
    if (done) return
    done = true
    Atomics.store(w.shared, BASE + 2 * slot, 0)
    Atomics.sub(w.shared, 2, 1)
    if (--pending === 0) clearInterval(beating)
  }
}
