// The headless gateway as a child process (`loopdesk gateway run --port 0`) on a given state dir: start
// (ready once <stateDir>/gateway/gateway.json names the child's pid), SIGKILL, graceful stop, RSS.
// Everything the child prints goes to a LogSink so the suite can scan it for secrets.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { cliArgv, ROOT } from './cli-bundle'
import type { LogSink } from './logs'

export interface GatewayChild {
  readonly child: ChildProcess
  readonly pid: number
  readonly url: string
  readonly port: number
  readonly stateDir: string
  /** resolves when the process has exited */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGKILL and wait for the exit */
  kill9(): Promise<void>
  /** SIGTERM (drain) and wait; SIGKILL after `graceMs` */
  stop(graceMs?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** resident set size in KiB (from /proc/<pid>/status) */
  rssKb(): number
  /** V8 heap in use after a full GC, in bytes (only with `inspect: true`: asks through the inspector) */
  heapUsedAfterGc(): Promise<number>
  alive(): boolean
}

export interface StartOptions {
  stateDir: string
  token: string
  logs: LogSink
  /** extra CLI args after `gateway run --port <port>` */
  args?: string[]
  /** fixed port (default 0: any free port) */
  port?: number
  env?: NodeJS.ProcessEnv
  /** label in the log */
  label?: string
  /** open the V8 inspector on a loopback port (for heapUsedAfterGc) */
  inspect?: boolean
  timeoutMs?: number
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function readInfo(stateDir: string): { pid: number; port: number; url: string } | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(stateDir, 'gateway', 'gateway.json'), 'utf8'))
    return typeof v.pid === 'number' && typeof v.port === 'number' ? v : undefined
  } catch {
    return undefined
  }
}

export function rssKbOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const m = /VmRSS:\s+(\d+)\s+kB/.exec(status)
  if (!m) throw new Error(`no VmRSS for pid ${pid}`)
  return Number(m[1])
}

export async function startGatewayChild(o: StartOptions): Promise<GatewayChild> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LOOPDESK_STATE_DIR: o.stateDir,
    LOOPDESK_GATEWAY_TOKEN: o.token,
    NO_COLOR: '1',
    ...o.env,
  }
  const nodeArgs = o.inspect ? ['--inspect=127.0.0.1:0'] : []
  const child = spawn(process.execPath, [...nodeArgs, ...cliArgv(['gateway', 'run', '--port', String(o.port ?? 0), ...(o.args ?? [])])], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const label = o.label ?? 'gateway'
  o.logs.attach(child, `${label}:${child.pid}`)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  let exitedEarly = false
  void exited.then(() => (exitedEarly = true))
  const deadline = Date.now() + (o.timeoutMs ?? 60_000)
  let info: ReturnType<typeof readInfo>
  for (;;) {
    info = readInfo(o.stateDir)
    if (info && info.pid === child.pid) break
    if (exitedEarly) throw new Error(`gateway exited before listening:\n${o.logs.of(`${label}:${child.pid}`)}`)
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`gateway did not start within ${o.timeoutMs ?? 60_000} ms:\n${o.logs.of(`${label}:${child.pid}`)}`)
    }
    await sleep(25)
  }
  const pid = child.pid!
  const alive = () => child.exitCode === null && child.signalCode === null
  return {
    child,
    pid,
    url: `ws://127.0.0.1:${info.port}`,
    port: info.port,
    stateDir: o.stateDir,
    exited,
    alive,
    async kill9() {
      if (alive()) child.kill('SIGKILL')
      await exited
    },
    async stop(graceMs = 20_000) {
      if (alive()) child.kill('SIGTERM')
      const timer = setTimeout(() => alive() && child.kill('SIGKILL'), graceMs)
      const r = await exited
      clearTimeout(timer)
      return r
    },
    rssKb: () => rssKbOf(pid),
    async heapUsedAfterGc() {
      const m = /Debugger listening on (ws:\/\/127\.0\.0\.1:\d+\/[\w-]+)/.exec(o.logs.of(`${label}:${pid}`))
      if (!m) throw new Error('the gateway was not started with inspect: true')
      return inspectorHeapUsed(m[1])
    },
  }
}

/** Full GC, then process.memoryUsage().heapUsed, over the Chrome DevTools protocol. */
async function inspectorHeapUsed(url: string): Promise<number> {
  const { default: WebSocket } = await import('ws')
  const ws = new WebSocket(url)
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  let id = 0
  const call = (method: string, params?: unknown) =>
    new Promise<any>((resolve, reject) => {
      const my = ++id
      const onMsg = (d: Buffer) => {
        const f = JSON.parse(d.toString())
        if (f.id !== my) return
        ws.off('message', onMsg)
        if (f.error) reject(new Error(f.error.message))
        else resolve(f.result)
      }
      ws.on('message', onMsg)
      ws.send(JSON.stringify({ id: my, method, params }))
    })
  try {
    await call('HeapProfiler.collectGarbage')
    await call('HeapProfiler.collectGarbage')
    const r = await call('Runtime.evaluate', { expression: 'process.memoryUsage().heapUsed', returnByValue: true })
    return Number(r.result.value)
  } finally {
    ws.close()
  }
}
