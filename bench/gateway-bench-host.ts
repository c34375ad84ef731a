// Server process of the gateway bench: the real runtime + the WebSocket gateway, as a deployment runs them
// (the bench client lives in the parent process, the scripted model server in a third one). Talks to the
// parent over the Node IPC channel:
//   parent → {cmd:'start-stats'} | {cmd:'stats'} | {cmd:'runtime-stream', id, deltas} | {cmd:'fake-gateway'}
//            | {cmd:'stop'}
//   child  → {type:'ready', url} first, then one {type:'reply', cmd, ...} per command.
// Stats are this process's: the runtime's `agent` handler time, event-loop delay and CPU time.
// BENCH_HOST_PROFILE=<dir> writes a CPU profile of the measured runs pass (start-stats → stats) there;
// with BENCH_HOST_ALLOC=1 also a sampling allocation profile (.heapprofile, young-GC'd objects included).
import fs from 'node:fs'
import { Session } from 'node:inspector/promises'
import os from 'node:os'
import path from 'node:path'
import v8 from 'node:v8'
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks'
import type { Handlers } from '../src/main/api/dispatch'
import type { RuntimeHost } from '../src/main/api/host'
import { FakeHost } from '../src/main/gateway/fake-host'
import { startGateway, type GatewayHandle } from '../src/main/gateway/server'
import { createRuntime } from '../src/main/runtime/runtime'
import { memoryCredentials } from '../test/fixtures/memory-credentials'

const TOKEN = process.env.BENCH_TOKEN ?? 'bench-token-0123456789abcdef'
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 20)
const openaiBaseUrl = process.env.BENCH_OPENAI_BASE_URL
if (!openaiBaseUrl || !process.send) {
  console.error('gateway-bench-host: start me from bench/gateway.bench.ts (needs BENCH_OPENAI_BASE_URL and an IPC channel)')
  process.exit(2)
}
const send = (msg: unknown) => process.send!(msg)

const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-gw-bench-'))
fs.writeFileSync(
  path.join(stateDir, 'loopdesk.json'),
  JSON.stringify({
    models: {
      providers: {
        bench: {
          baseUrl: openaiBaseUrl,
          api: 'openai-completions',
          models: [{ id: 'fast', contextWindow: 1_000_000, maxTokens: 100_000, cost: { input: 1, output: 2 } }],
        },
      },
    },
    agents: { defaults: { model: { primary: 'bench/fast' }, maxConcurrent: IN_FLIGHT } },
  }),
)
const runtime = await createRuntime({ stateDir, env: {}, credentials: memoryCredentials(), modelRetries: 0, watchConfig: false })

// The runtime's own accept time (handler: validate, persist the session entry, journal, enqueue), to split
// the client-observed ack latency into runtime and transport parts.
let handlerMs: number[] = []
// per request, on the wall clock shared with the client: when the handler started and when it returned
let handlerSpans: Record<string, [number, number]> = {}
const wallNow = () => performance.timeOrigin + performance.now()
const timedAgent: Handlers['agent'] = async (p, ctx) => {
  const t = performance.now()
  const w = wallNow()
  try {
    return await runtime.handlers.agent(p, ctx)
  } finally {
    handlerMs.push(performance.now() - t)
    const key = (p as { idempotencyKey?: string }).idempotencyKey
    if (key) handlerSpans[key] = [w, wallNow()]
  }
}
const host: RuntimeHost = {
  handlers: { ...runtime.handlers, agent: timedAgent },
  subscribe: (l) => runtime.subscribe(l),
  agentFinal: (id) => runtime.agentFinal(id),
  info: runtime.info,
  shutdown: (o) => runtime.shutdown(o),
  currentConfig: runtime.currentConfig?.bind(runtime),
  onConfigChange: runtime.onConfigChange?.bind(runtime),
}
const gw = await startGateway({ host, port: 0, token: TOKEN, stateDir, staticDir: null, writeInfo: false })
let fakeGw: GatewayHandle | undefined

const profileDir = process.env.BENCH_HOST_PROFILE
let profiler: Session | undefined
let loop: ReturnType<typeof monitorEventLoopDelay> | undefined
// Stalls: a 1 ms timer that fires late was blocked by a long task (the main thread busy) or by the OS
// running other processes (this one descheduled): the main thread's CPU time during the gap tells them apart.
interface Stall {
  wallMs: number
  cpuMs: number
  /** monotonic µs at the gap's end (the clock of CPU profiles) */
  endUs: number
}
let stalls: Stall[] = []
let gaps: number[] = []
let stallTimer: NodeJS.Timeout | undefined
// CPU time of the main thread only (other threads — GC helpers, the fs thread pool — also count in
// process.cpuUsage): Linux schedstat gives its on-CPU and run-queue (ready but not running) nanoseconds.
// (read every 1 ms: one pread on a kept descriptor, not open/read/close)
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`
const schedFd = fs.existsSync(SCHEDSTAT) ? fs.openSync(SCHEDSTAT, 'r') : undefined
const schedBuf = Buffer.alloc(128)
function schedstat(field: 0 | 1): number {
  const n = fs.readSync(schedFd!, schedBuf, 0, schedBuf.length, 0)
  return Number(schedBuf.toString('latin1', 0, n).split(' ')[field]) / 1e6
}
/** ms the main thread spent ready to run but not running (descheduled), or NaN without schedstat */
function mainThreadWaitMs(): number {
  return schedFd !== undefined ? schedstat(1) : NaN
}
function mainThreadCpuMs(): number {
  if (schedFd !== undefined) return schedstat(0)
  const u = process.cpuUsage()
  return (u.user + u.system) / 1000
}
function watchStalls() {
  let lastWall = performance.now()
  let lastCpu = mainThreadCpuMs()
  stallTimer = setInterval(() => {
    const wall = performance.now()
    const cpu = mainThreadCpuMs()
    const gap = wall - lastWall
    gaps.push(gap)
    if (gap > 5) stalls.push({ wallMs: gap, cpuMs: cpu - lastCpu, endUs: Number(process.hrtime.bigint() / 1000n) })
    lastWall = wall
    lastCpu = cpu
  }, 1)
}
// GC pauses on the main thread: a young-generation scavenge every ~100 ms of 5–8 ms was the largest single
// cause of slow acks measured here (a frame arriving during one waits for it)
let gcPauses: { minor: number[]; major: number[] } = { minor: [], major: [] }
// the same pauses on the wall clock shared with the client, to tell how much of a slow ack was one
let gcSpans: Array<[number, number]> = []
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind
    ;(kind === perfConstants.NODE_PERFORMANCE_GC_MINOR ? gcPauses.minor : gcPauses.major).push(e.duration)
    gcSpans.push([performance.timeOrigin + e.startTime, performance.timeOrigin + e.startTime + e.duration])
  }
})
gcObserver.observe({ entryTypes: ['gc'] })
let cpuAt = process.cpuUsage()
let waitAt = 0
let wallAt = performance.now()
const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN)

/** The same stream through the runtime alone (in-process subscriber, no WebSocket), to attribute time. */
async function runtimeStream(id: string, deltas: number): Promise<number> {
  const done = new Promise<void>((resolve) => {
    const off = runtime.subscribe((e) => {
      if (e.event === 'chat' && e.payload.runId === id && e.payload.state === 'final') {
        off()
        resolve()
      }
    })
  })
  const t0 = performance.now()
  await runtime.handlers.agent({ message: `stream ${deltas} deltas`, idempotencyKey: id, sessionKey: `agent:main:rt-${id}` }, { transport: 'local' })
  await done
  return performance.now() - t0
}

process.on('message', (raw) => {
  const msg = raw as { cmd: string; id?: string; deltas?: number }
  void (async () => {
    switch (msg.cmd) {
      case 'start-stats':
        handlerMs = []
        handlerSpans = {}
        loop?.disable()
        loop = monitorEventLoopDelay({ resolution: 1 })
        loop.enable()
        if (profileDir) {
          profiler = new Session()
          profiler.connect()
          await profiler.post('Profiler.enable')
          await profiler.post('Profiler.setSamplingInterval', { interval: 200 })
          await profiler.post('Profiler.start')
          if (process.env.BENCH_HOST_ALLOC) {
            // allocations, including objects young-generation GCs already freed: what feeds the scavenges;
            // BENCH_HOST_ALLOC=promoted leaves out what a scavenge freed: what survived them (their cost)
            const promotedOnly = process.env.BENCH_HOST_ALLOC === 'promoted'
            await profiler.post('HeapProfiler.enable')
            await profiler.post('HeapProfiler.startSampling', { samplingInterval: 16_384, includeObjectsCollectedByMinorGC: !promotedOnly, includeObjectsCollectedByMajorGC: true })
          }
        }
        stalls = []
        gaps = []
        gcPauses = { minor: [], major: [] }
        gcSpans = []
        if (stallTimer) clearInterval(stallTimer)
        watchStalls()
        cpuAt = process.cpuUsage()
        waitAt = mainThreadWaitMs()
        wallAt = performance.now()
        return send({ type: 'reply', cmd: msg.cmd })
      case 'stats': {
        loop?.disable()
        if (stallTimer) clearInterval(stallTimer)
        stallTimer = undefined
        const cpu = process.cpuUsage(cpuAt)
        const wall = performance.now() - wallAt
        const h = [...handlerMs].sort((a, b) => a - b)
        if (profiler) {
          const { profile } = await profiler.post('Profiler.stop')
          fs.mkdirSync(profileDir!, { recursive: true })
          const base = path.join(profileDir!, `gateway-host-runs-${Date.now()}`)
          fs.writeFileSync(`${base}.cpuprofile`, JSON.stringify(profile))
          fs.writeFileSync(`${base}.stalls.json`, JSON.stringify(stalls))
          if (process.env.BENCH_HOST_ALLOC) {
            const { profile: heap } = await profiler.post('HeapProfiler.stopSampling')
            fs.writeFileSync(`${base}.heapprofile`, JSON.stringify(heap))
          }
          profiler.disconnect()
          profiler = undefined
        }
        return send({
          type: 'reply',
          cmd: msg.cmd,
          handler: { p50: pct(h, 50), p99: pct(h, 99), n: h.length },
          spans: handlerSpans,
          gcSpans,
          loop: loop ? { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 } : undefined,
          cpuPct: ((cpu.user + cpu.system) / 1000 / wall) * 100,
          wallMs: wall,
          runQueueMs: mainThreadWaitMs() - waitAt,
          gc: Object.fromEntries(
            Object.entries(gcPauses).map(([k, xs]) => {
              const sorted = [...xs].sort((a, b) => a - b)
              return [k, { n: xs.length, p50: xs.length ? pct(sorted, 50) : 0, max: sorted.at(-1) ?? 0, sumMs: xs.reduce((a, b) => a + b, 0) }]
            }),
          ),
          // gaps over 5 ms: busy = this process used ≥ 70 % of the gap on the CPU (a long task)
          stalls: {
            gapP50: pct([...gaps].sort((a, b) => a - b), 50),
            gapP99: pct([...gaps].sort((a, b) => a - b), 99),
            ticks: gaps.length,
            n: stalls.length,
            busy: stalls.filter((x) => x.cpuMs >= 0.7 * x.wallMs).length,
            maxBusyMs: Math.max(0, ...stalls.filter((x) => x.cpuMs >= 0.7 * x.wallMs).map((x) => x.wallMs)),
            maxMs: Math.max(0, ...stalls.map((x) => x.wallMs)),
            descheduledMs: stalls.reduce((a, x) => a + Math.max(0, x.wallMs - x.cpuMs), 0),
          },
        })
      }
      case 'runtime-stream':
        return send({ type: 'reply', cmd: msg.cmd, ms: await runtimeStream(msg.id!, msg.deltas!) })
      case 'fake-gateway': {
        // a host whose `agent` handler answers at once: what the WebSocket transport itself adds to an ack
        fakeGw ??= await startGateway({ host: new FakeHost({ chunks: ['ok'] }), port: 0, token: TOKEN, stateDir, staticDir: null, writeInfo: false })
        return send({ type: 'reply', cmd: msg.cmd, url: fakeGw.url })
      }
      case 'stop':
        // BENCH_HOST_HEAPSNAPSHOT=<dir>: the heap after every pass (what a major GC has to mark)
        if (process.env.BENCH_HOST_HEAPSNAPSHOT) v8.writeHeapSnapshot(path.join(process.env.BENCH_HOST_HEAPSNAPSHOT, `gateway-host-${Date.now()}.heapsnapshot`))
        await fakeGw?.close()
        await gw.close()
        await runtime.shutdown({ drainMs: 0 })
        fs.rmSync(stateDir, { recursive: true, force: true })
        send({ type: 'reply', cmd: msg.cmd })
        process.disconnect()
        return
    }
  })().catch((err) => {
    console.error(err)
    process.exit(1)
  })
})
// the parent died: do not linger
process.on('disconnect', () => setTimeout(() => process.exit(0), 100).unref())

send({ type: 'ready', url: gw.url })
