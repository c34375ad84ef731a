// Gateway bench over the real runtime and the scripted model server, three processes as in a deployment:
// this one is the client (a real WebSocket client, the CLI's), bench/gateway-bench-host.ts runs the runtime
// + gateway, test/fixtures/model-server-cli.ts the scripted OpenAI-compatible server (the real pi-ai client
// talks to it over HTTP).
//  1. 200 `agent` runs over 20 sessions, 20 in flight, through the WebSocket gateway: runs/s and
//     ack / first-event / total latency p50/p99 as seen by the client; the server process's event-loop
//     delay, CPU and `agent` handler time. Repeated BENCH_PASSES times (default 3): every pass is printed,
//     the verdict uses the median pass.
//  2. one 20,000-delta stream end to end (agent request → chat final at the client, every agent event
//     parsed) versus reading the same stream straight from the model server (HTTP + SSE parse).
// Targets: ack p99 < 5 ms; the stream within 1.5× of the direct read.   Usage: npm run bench:gateway
// BENCH_HOST_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server process.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { availableParallelism } from 'node:os'
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import { ROOT, startModelServerProcess } from './model-server-process'
import { bundleEntry, bundleSocketThreadWorker } from './bench-bundle'
import { connectGateway, type GatewayConnectionClient } from '../src/cli/gateway-client'
import { generateNodeDeviceIdentity } from '../src/cli/identity'
import { relaunchPoolSize } from '../src/cli/v8-pool'

const RUNS = Number(process.env.BENCH_RUNS ?? 200)
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 20)
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 20)
// Runs before the measured passes, as a gateway that has been up a while: after 40, TurboFan was still
// compiling ~100 functions per pass on V8's worker threads (perf: ~0.4 of the 2 cores, taken from the
// main thread's share); after 1,000 it is settled. The sessions' transcripts grow by 50 turns each.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 1000)
const DELTAS = Number(process.env.BENCH_DELTAS ?? 20_000)
const STREAM_REPEATS = Number(process.env.BENCH_STREAM_REPEATS ?? 3)
/** the runs pass is repeated (the machine is shared: one pass can land on someone else's test run) */
const PASSES = Number(process.env.BENCH_PASSES ?? 3)
/** open-loop passes after the measured ones, as shares of the measured throughput ("" = none) */
const OPEN_LOOP_SHARES = (process.env.BENCH_OPEN_LOOP ?? '0.5,0.8').split(',').filter(Boolean).map(Number)
const TOKEN = 'bench-token-0123456789abcdef'

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
const fmt = (n: number) => n.toFixed(2)
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

/** ms this process's main thread has spent ready to run but not running (Linux schedstat), or undefined */
function clientRunQueueMs(): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[1]) / 1e6
  } catch {
    return undefined
  }
}

/** CPU time (user + system, ms) a process has used so far; undefined where /proc is not there. */
function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime: fields 14 and 15 overall (f[0] is field 3), in clock ticks (100 per second on Linux)
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100
  } catch {
    return undefined
  }
}

interface HostReply {
  type: 'reply'
  cmd: string
  [k: string]: unknown
}

/**
 * The host as the app ships its main process: one bundle (esbuild; electron-vite bundles the app the same
 * way). Through tsx's loader every function is wrapped in keepNames' `__name` (a defineProperty per
 * closure made): ~10% of what survived the scavenges, and their pauses. BENCH_HOST_TSX=1 runs the sources
 * through tsx instead. The bundle sits under node_modules/.cache so its package imports resolve.
 */
const HOST_POOL_SIZE = relaunchPoolSize(['gateway', 'run'], (process.env.BENCH_HOST_NODE_ARGS ?? '').split(' '), process.env, availableParallelism())

async function hostEntry(): Promise<string[]> {
  const entry = path.join(ROOT, 'bench/gateway-bench-host.ts')
  // V8's worker pool as `loopdesk gateway run` sizes it on this machine (src/cli/v8-pool.ts)
  const size = HOST_POOL_SIZE
  const pool = size === undefined ? [] : [`--v8-pool-size=${size}`]
  if (process.env.BENCH_HOST_TSX) return [...pool, '--import', 'tsx', entry]
  // the socket thread's worker beside the host, where the gateway looks for it (socket-thread-entry.ts); whether
  // the gateway uses it is LOOPDESK_SOCKET_THREAD, passed on to the host
  await bundleSocketThreadWorker(ROOT)
  return [...pool, await bundleEntry(ROOT, 'bench/gateway-bench-host.ts', 'gateway-bench-host.mjs')]
}

/** The runtime + gateway process, driven over IPC (one command at a time). */
class HostProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(openaiBaseUrl: string): Promise<HostProcess> {
    const extra = (process.env.BENCH_HOST_NODE_ARGS ?? '').split(' ').filter(Boolean)
    const child = spawn(process.execPath, [...extra, ...(await hostEntry())], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      env: { ...process.env, BENCH_OPENAI_BASE_URL: openaiBaseUrl, BENCH_TOKEN: TOKEN, BENCH_IN_FLIGHT: String(IN_FLIGHT) },
    })
    const url = await new Promise<string>((resolve, reject) => {
      child.once('message', (m) => resolve((m as { url: string }).url))
      child.once('exit', (code) => reject(new Error(`gateway host exited (${code})`)))
    })
    return new HostProcess(child, url)
  }

  get pid(): number {
    return this.child.pid!
  }

  call(msg: Record<string, unknown>): Promise<HostReply> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`gateway host exited (${code}) during ${String(msg.cmd)}`))
      this.child.once('exit', onExit)
      this.child.once('message', (m) => {
        this.child.off('exit', onExit)
        resolve(m as HostReply)
      })
      this.child.send(msg)
    })
  }

  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()))
    await this.call({ cmd: 'stop' })
    await exited
  }
}

/** The baseline: one client reading the SSE stream straight from the model server and parsing it. */
async function directRead(openaiBaseUrl: string, deltas: number): Promise<{ ms: number; frames: number; chars: number }> {
  const t0 = performance.now()
  const res = await fetch(`${openaiBaseUrl.replace(/\/$/, '')}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fast', stream: true, messages: [{ role: 'user', content: `stream ${deltas} deltas` }] }),
  })
  const decoder = new TextDecoder()
  let buf = ''
  let frames = 0
  let text = ''
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buf += decoder.decode(chunk, { stream: true })
    let i: number
    while ((i = buf.indexOf('\n\n')) !== -1) {
      const frame = buf.slice(0, i)
      buf = buf.slice(i + 2)
      if (!frame.startsWith('data: ') || frame === 'data: [DONE]') continue
      const j = JSON.parse(frame.slice(6))
      const c = j.choices?.[0]?.delta?.content
      if (typeof c === 'string') {
        text += c
        frames++
      }
    }
  }
  return { ms: performance.now() - t0, frames, chars: text.length }
}

async function main() {
  const server = await startModelServerProcess()
  const hostProc = await HostProcess.start(server.openaiBaseUrl)
  const identity = generateNodeDeviceIdentity()
  const client: GatewayConnectionClient = await connectGateway({ url: hostProc.url, token: TOKEN, identity })

  // ------------------------------------------------------------------ 1. runs
  const firstEventAt = new Map<string, number>()
  const pendingFirst = new Set<string>()
  client.onEvent((e) => {
    if (e.event !== 'agent') return
    const id = (e.payload as { runId?: string }).runId
    if (id && pendingFirst.has(id)) {
      pendingFirst.delete(id)
      firstEventAt.set(id, performance.now())
    }
  })
  // the client's own GC pauses on the shared wall clock: [start, end]
  let clientGc: Array<[number, number]> = []
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) clientGc.push([performance.timeOrigin + e.startTime, performance.timeOrigin + e.startTime + e.duration])
  }).observe({ entryTypes: ['gc'] })
  let ack: number[] = []
  // wall-clock send / ack-receipt times per run, to split slow acks with the host's handler spans
  let ackWall: Record<string, [number, number]> = {}
  const wallNow = () => performance.timeOrigin + performance.now()
  let first: number[] = []
  let total: number[] = []
  let failures = 0
  let seq = 0

  async function oneRun(measure: boolean) {
    const n = seq++
    const id = `gw-bench-${n}`
    pendingFirst.add(id)
    const t0 = performance.now()
    const sentWall = wallNow()
    let ackAt = 0
    const final = await client.request(
      'agent',
      { message: `question ${n}`, idempotencyKey: id, sessionKey: `agent:main:gwb-${n % SESSIONS}` },
      {
        expectFinal: true,
        timeoutMs: 120_000,
        onAccepted: () => {
          ackAt = performance.now()
          ackWall[id] = [sentWall, wallNow()]
        },
      },
    )
    const end = performance.now()
    pendingFirst.delete(id)
    if (final?.status !== 'ok') failures++
    if (!measure) return
    ack.push(ackAt - t0)
    const fe = firstEventAt.get(id)
    if (fe !== undefined) first.push(fe - t0)
    total.push(end - t0)
    firstEventAt.delete(id)
  }

  /** The slowest 1% of acks, split on the shared wall clock: until the server's handler started (frame in
   * flight + waiting for the server's event loop), the handler, and after it (write + the client's loop). */
  function printSlowSplit(spans: Record<string, [number, number]>, serverGc: Array<[number, number]> = []) {
    const all = Object.entries(ackWall)
      .map(([id, [sent, got]]) => ({ id, ms: got - sent, sent, got, span: spans[id] }))
      .filter((x) => x.span)
      .sort((a, b) => b.ms - a.ms)
    const slow = all.slice(0, Math.max(1, Math.ceil(all.length / 100)))
    if (!slow.length) return
    const avg2 = (xs: number[]) => (xs.length ? fmt(xs.reduce((a, b) => a + b, 0) / xs.length) : '–')
    const avg = (f: (x: (typeof slow)[number]) => number) => fmt(slow.reduce((a, x) => a + f(x), 0) / slow.length)
    // of the time after the handler, how much the client itself spent in GC pauses
    const overlap = (spansIn: Array<[number, number]>, from: number, to: number) => spansIn.reduce((a, [s, e]) => a + Math.max(0, Math.min(e, to) - Math.max(s, from)), 0)
    const clientGcIn = (from: number, to: number) => overlap(clientGc, from, to)
    const inGc = all.filter((x) => overlap(serverGc, x.sent, x.span[0]) > 0)
    if (serverGc.length) console.log(`      acks that waited for a server GC pause: ${inGc.length} of ${all.length} (their mean ${avg2(inGc.map((x) => x.ms))} ms)`)
    // the socket thread acks before the main thread's handler runs: the split then says when the runtime took it
    if (process.env.LOOPDESK_SOCKET_THREAD !== '0') console.log('      (the socket thread sent these acks; "handler" below is the main thread taking the run after them)')
    console.log(
      `      slowest 1% (${slow.length}): ${avg((x) => x.ms)} ms = until handler ${avg((x) => x.span[0] - x.sent)} (server GC ${avg((x) => overlap(serverGc, x.sent, x.span[0]))}) + handler ${avg((x) => x.span[1] - x.span[0])} + after ${avg((x) => x.got - x.span[1])} ms (mean; of the after, client GC ${avg((x) => clientGcIn(x.span[1], x.got))} ms)`,
    )
  }

  async function pool(count: number, measure: boolean) {
    let started = 0
    await Promise.all(
      Array.from({ length: Math.min(IN_FLIGHT, count) }, async () => {
        while (started < count) {
          started++
          await oneRun(measure)
        }
      }),
    )
  }

  type HostStats = {
    handler: { p50: number; p99: number }
    spans: Record<string, [number, number]>
    gcSpans: Array<[number, number]>
    loop: { p50: number; p99: number; max: number }
    cpuPct: number
    wallMs: number
    runQueueMs: number
    gc: Record<'minor' | 'major', { n: number; p50: number; max: number; sumMs: number }>
    stalls: { gapP50: number; gapP99: number; ticks: number; n: number; busy: number; maxBusyMs: number; maxMs: number; descheduledMs: number }
  }
  const os = await import('node:os')
  const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ')
  console.log(
    `gateway bench: ${RUNS} agent runs over ${SESSIONS} sessions, ${IN_FLIGHT} in flight (warm-up ${WARMUP}), ${PASSES} passes, real runtime + scripted model; load avg ${load()}`,
  )
  console.log(`  processes: client (this) · runtime + gateway (${process.env.BENCH_HOST_TSX ? 'sources through tsx' : 'bundled as shipped'}, V8 worker pool ${HOST_POOL_SIZE ?? 'default'} as gateway run sizes it${process.env.LOOPDESK_SOCKET_THREAD === '0' ? '; sockets on the main thread: LOOPDESK_SOCKET_THREAD=0' : '; sockets on the socket thread, which acks `agent`'}) · model server`)
  await pool(WARMUP, false)
  const passes: Array<{ runsPerSec: number; ack50: number; ack99: number; first50: number; first99: number; total50: number; total99: number }> = []
  for (let pass = 1; pass <= PASSES; pass++) {
    ack = []
    ackWall = {}
    clientGc = []
    first = []
    total = []
    await hostProc.call({ cmd: 'start-stats' })
    const clientLoop = monitorEventLoopDelay({ resolution: 1 })
    clientLoop.enable()
    const clientCpu0 = process.cpuUsage()
    const clientWait0 = clientRunQueueMs()
    const cpu0 = [cpuMsOf(hostProc.pid), cpuMsOf(server.pid)]
    const t0 = performance.now()
    await pool(RUNS, true)
    const elapsed = performance.now() - t0
    const clientCpu = process.cpuUsage(clientCpu0)
    const clientWait1 = clientRunQueueMs()
    const cpu1 = [cpuMsOf(hostProc.pid), cpuMsOf(server.pid)]
    clientLoop.disable()
    const stats = (await hostProc.call({ cmd: 'stats' })) as unknown as HostStats
    ack.sort((a, b) => a - b)
    first.sort((a, b) => a - b)
    total.sort((a, b) => a - b)
    const r = {
      runsPerSec: RUNS / (elapsed / 1000),
      ack50: pct(ack, 50),
      ack99: pct(ack, 99),
      first50: pct(first, 50),
      first99: pct(first, 99),
      total50: pct(total, 50),
      total99: pct(total, 99),
    }
    passes.push(r)
    const st = stats.stalls
    console.log(`  pass ${pass} (load avg ${load()})`)
    console.log(`    throughput      ${fmt(r.runsPerSec)} runs/s  (${fmt(elapsed)} ms)`)
    console.log(`    ack latency     p50 ${fmt(r.ack50)} ms   p99 ${fmt(r.ack99)} ms   (target p99 < 5)`)
    console.log(`      of which runtime agent handler p50 ${fmt(stats.handler.p50)} ms   p99 ${fmt(stats.handler.p99)} ms`)
    // The slowest 1% of acks, split on the shared wall clock: until the server's handler started (frame
    // in flight + waiting for the server's event loop), the handler, and after it (write + the client's loop).
    printSlowSplit(stats.spans, stats.gcSpans)
    console.log(`    first event     p50 ${fmt(r.first50)} ms   p99 ${fmt(r.first99)} ms`)
    console.log(`    total (final)   p50 ${fmt(r.total50)} ms   p99 ${fmt(r.total99)} ms`)
    console.log(
      `    server event-loop delay p50 ${fmt(stats.loop.p50)} ms   p99 ${fmt(stats.loop.p99)} ms   max ${fmt(stats.loop.max)} ms   (runtime + gateway process, CPU ${stats.cpuPct.toFixed(0)}%)`,
    )
    console.log(
      `      1 ms timer: ${st.ticks} ticks, gap p50 ${fmt(st.gapP50)} ms p99 ${fmt(st.gapP99)} ms; stalls > 5 ms: ${st.n} (longest ${fmt(st.maxMs)} ms); ${st.busy} of them the server main thread busy (longest ${fmt(st.maxBusyMs)} ms), the rest descheduled by the OS (${fmt(st.descheduledMs)} ms off CPU)`,
    )
    const gcLine = (k: 'minor' | 'major') => {
      const g = stats.gc[k]
      return `${g.n} ${k} (p50 ${fmt(g.p50)} ms, max ${fmt(g.max)} ms, ${fmt((100 * g.sumMs) / stats.wallMs)}% of the time)`
    }
    console.log(`      GC pauses on the server main thread: ${gcLine('minor')}, ${gcLine('major')}`)
    if (Number.isFinite(stats.runQueueMs)) {
      console.log(`      main thread waited ${fmt(stats.runQueueMs)} ms of ${fmt(stats.wallMs)} ms for a CPU (other processes running: machine load)`)
    }
    console.log(
      `    client event-loop delay p99 ${fmt(clientLoop.percentile(99) / 1e6)} ms   (client CPU ${(((clientCpu.user + clientCpu.system) / 1000 / elapsed) * 100).toFixed(0)}%; ${clientGc.length} GC pauses, longest ${fmt(Math.max(0, ...clientGc.map(([a, b]) => b - a)))} ms${clientWait0 !== undefined && clientWait1 !== undefined ? `; its main thread waited ${fmt(clientWait1 - clientWait0)} ms for a CPU` : ''})`,
    )
    // what each process costs per run: on 2 cores the three compete, and an ack waits for the server's turn
    const perRun = (i: number) => (cpu0[i] === undefined || cpu1[i] === undefined ? 'n/a' : fmt((cpu1[i]! - cpu0[i]!) / RUNS))
    console.log(
      `    CPU per run     client ${fmt((clientCpu.user + clientCpu.system) / 1000 / RUNS)} ms · runtime + gateway ${perRun(0)} ms · model server ${perRun(1)} ms   (10 ms ticks)`,
    )
  }
  const med = (k: keyof (typeof passes)[number]) => median(passes.map((x) => x[k]))
  const each = (k: keyof (typeof passes)[number]) => passes.map((x) => fmt(x[k])).join(' / ')
  console.log(`  median of ${PASSES} passes (each pass in brackets)`)
  console.log(`    throughput      ${fmt(med('runsPerSec'))} runs/s   [${each('runsPerSec')}]`)
  console.log(`    ack latency     p50 ${fmt(med('ack50'))} ms   p99 ${fmt(med('ack99'))} ms   [p99 ${each('ack99')}]   (target p99 < 5)`)
  console.log(`    first event     p50 ${fmt(med('first50'))} ms   p99 ${fmt(med('first99'))} ms`)
  console.log(`    total (final)   p50 ${fmt(med('total50'))} ms   p99 ${fmt(med('total99'))} ms`)
  console.log(`    failures        ${failures}`)

  // ------------------------------------------------------------------ 1a. the same runs arriving at a set rate
  // Not the target's measurement (that is the closed loop above) but what explains it: with 20 always in
  // flight the server's main thread never idles, so an ack waits for whatever that thread is doing. Here
  // runs arrive on their own (Poisson, at a share of the capacity just measured), as users' requests do.
  const capacity = med('runsPerSec')
  for (const share of OPEN_LOOP_SHARES) {
    const rate = capacity * share
    ack = []
    ackWall = {}
    clientGc = []
    first = []
    total = []
    await hostProc.call({ cmd: 'start-stats' })
    const runs: Promise<void>[] = []
    const t0 = performance.now()
    let due = t0
    for (let i = 0; i < RUNS; i++) {
      due += (-Math.log(1 - Math.random()) / rate) * 1000
      const wait = due - performance.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      runs.push(oneRun(true))
    }
    await Promise.all(runs)
    const elapsed = performance.now() - t0
    const stats = (await hostProc.call({ cmd: 'stats' })) as unknown as HostStats
    ack.sort((a, b) => a - b)
    console.log(
      `  open loop at ${Math.round(share * 100)}% of that throughput (${fmt(rate)} runs/s offered, ${fmt(RUNS / (elapsed / 1000))} done): ack p50 ${fmt(pct(ack, 50))} ms   p99 ${fmt(pct(ack, 99))} ms   (server CPU ${stats.cpuPct.toFixed(0)}%, loop delay p99 ${fmt(stats.loop.p99)} ms)`,
    )
    printSlowSplit(stats.spans, stats.gcSpans)
  }

  // ------------------------------------------------------------------ 1b. the gateway's own share of the ack
  // Same client, same request shape, but a host whose `agent` handler answers at once (no runtime work
  // competing for the event loop): what the WebSocket transport itself adds to an ack.
  {
    const { url: fakeUrl } = (await hostProc.call({ cmd: 'fake-gateway' })) as unknown as { url: string }
    const fc = await connectGateway({ url: fakeUrl, token: TOKEN, identity })
    const fAck: number[] = []
    for (let i = 0; i < 1000 + 100; i++) {
      const t = performance.now()
      await fc.request('agent', { message: 'x', idempotencyKey: `fake-${i}` })
      if (i >= 100) fAck.push(performance.now() - t)
    }
    fAck.sort((a, b) => a - b)
    console.log(`  transport-only ack (fake host, 1000 sequential) p50 ${fmt(pct(fAck, 50))} ms   p99 ${fmt(pct(fAck, 99))} ms`)
    await fc.close()
  }

  // ------------------------------------------------------------------ 2. one long stream
  const direct: number[] = []
  const e2e: number[] = []
  const runtimeOnly: number[] = []
  let lastDirect = { frames: 0, chars: 0 }
  let lastE2e = { agentEvents: 0, chatDeltas: 0, chars: 0 }
  for (let r = 0; r < STREAM_REPEATS; r++) {
    const d = await directRead(server.openaiBaseUrl, DELTAS)
    direct.push(d.ms)
    lastDirect = d

    // the same stream through the runtime alone (in the server process, no socket), to attribute time
    const rt = (await hostProc.call({ cmd: 'runtime-stream', id: `rt-stream-${r}`, deltas: DELTAS })) as unknown as { ms: number }
    runtimeOnly.push(rt.ms)

    const id = `gw-stream-${r}`
    let agentEvents = 0
    let chatDeltas = 0
    let finalText = ''
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`stream ${id}: no chat final within 10 min`)), 600_000)
      const offClose = client.onClose((code, reason) => reject(new Error(`gateway closed the bench client: ${code} ${reason}`)))
      const off = client.onEvent((e) => {
        const p = e.payload as { runId?: string; stream?: string; state?: string; message?: { content: Array<{ text: string }> } }
        if (p?.runId !== id) return
        if (e.event === 'agent') agentEvents++
        else if (e.event === 'chat' && p.state === 'delta') chatDeltas++
        else if (e.event === 'chat' && p.state === 'final') {
          finalText = p.message?.content[0]?.text ?? ''
          off()
          offClose()
          clearTimeout(timer)
          resolve()
        }
      })
    })
    const s0 = performance.now()
    await client.request('agent', { message: `stream ${DELTAS} deltas`, idempotencyKey: id, sessionKey: `agent:main:stream-${r}` })
    await done
    e2e.push(performance.now() - s0)
    lastE2e = { agentEvents, chatDeltas, chars: finalText.length }
  }
  const ratio = median(e2e) / median(direct)
  const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' / ')
  console.log(`  ${DELTAS}-delta stream (median of ${STREAM_REPEATS}; each run in brackets)`)
  console.log(`    direct from model server  ${fmt(median(direct))} ms   [${list(direct)}]   (${lastDirect.frames} SSE deltas, ${lastDirect.chars} chars)`)
  console.log(`    runtime alone (no socket) ${fmt(median(runtimeOnly))} ms   [${list(runtimeOnly)}]   (${fmt(median(runtimeOnly) / median(direct))}× direct)`)
  console.log(
    `    end to end via gateway    ${fmt(median(e2e))} ms   [${list(e2e)}]   (${lastE2e.agentEvents} agent events, ${lastE2e.chatDeltas} chat deltas, final ${lastE2e.chars} chars)`,
  )
  console.log(`    ratio                     ${fmt(ratio)}×   (target ≤ 1.5×)`)
  const ok = med('ack99') < 5 && ratio <= 1.5 && failures === 0 && lastE2e.chars === lastDirect.chars
  console.log(ok ? 'RESULT: within targets' : 'RESULT: OUTSIDE targets')

  await client.close()
  await hostProc.stop()
  server.stop()
  process.exitCode = ok ? 0 : 1
}

/** The client runs bundled as the CLI ships (BENCH_CLIENT_TSX=1: through tsx): tsx's keepNames wrappers
 * were CPU and GC work in the process that receives the acks. */
async function launch(): Promise<void> {
  if (process.env.BENCH_CLIENT_TSX || process.env.LOOPDESK_BENCH_ROOT) return main()
  const bundle = await bundleEntry(ROOT, 'bench/gateway.bench.ts', 'gateway-bench-client.mjs')
  const child = spawn(process.execPath, [bundle], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, LOOPDESK_BENCH_ROOT: ROOT } })
  const forward = (sig: NodeJS.Signals) => child.kill(sig)
  process.on('SIGINT', forward).on('SIGTERM', forward)
  process.exitCode = await new Promise<number>((resolve) => child.once('exit', (code, sig) => resolve(code ?? (sig ? 1 : 0))))
}

launch().catch((err) => {
  console.error(err)
  process.exit(1)
})
