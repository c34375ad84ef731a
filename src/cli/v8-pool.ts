// `loopdesk gateway run` sizes V8's worker pool to the machine. Node starts 4 V8 worker threads whatever
// the core count; they run TurboFan compiles and the parallel parts of every GC. On a 2-core machine the
// gateway's main thread then competed with up to 4 of them (plus the model client and anything else):
// bench:gateway measured `agent` ack p99 5.0–7.8 ms with the default and 3.7–4.4 ms with one worker, at
// the same throughput. The pool size is a process start option only, so `gateway run` starts itself once
// more with it (bin/loopdesk.mjs); with ≥ 5 cores the size is Node's default and nothing is relaunched.
//
// The relaunched gateway is the process that serves (its pid is the one in gateway.json). The launcher
// passes signals on without doubling them: Ctrl-C in a terminal reaches both processes, and a second
// SIGINT means "exit without draining" — so the child reports each signal it got, and the launcher only
// forwards what the child did not get itself. If the launcher dies, the child drains and exits.
import { spawn } from 'node:child_process'
import os from 'node:os'
import { claimForGateway, LAUNCHER_CLAIM_ENV, takeLauncherClaimEnv } from './launcher-claim'

export const RELAUNCHED_ENV = 'LOOPDESK_RELAUNCHED'
/** `LOOPDESK_V8_POOL=0` keeps Node's default (no relaunch); a number sets the size */
export const POOL_ENV = 'LOOPDESK_V8_POOL'
const NODE_DEFAULT_POOL = 4
/** how long a signal the launcher got waits for the child to report the same one before it is forwarded */
const FORWARD_AFTER_MS = 500

export function poolSizeFor(cores: number): number {
  return Math.max(1, Math.min(NODE_DEFAULT_POOL, cores - 1))
}

/** The pool size to relaunch `argv` with, or undefined when this process should run it as it is. */
export function relaunchPoolSize(argv: string[], execArgv: string[], env: NodeJS.ProcessEnv, cores: number): number | undefined {
  if (argv[0] !== 'gateway' || argv[1] !== 'run') return undefined
  if (env[RELAUNCHED_ENV]) return undefined
  const given = [...execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/)]
  if (given.some((a) => a.startsWith('--v8-pool-size'))) return undefined
  const wanted = env[POOL_ENV]
  if (wanted !== undefined && wanted !== '') {
    const n = Number(wanted)
    return Number.isInteger(n) && n > 0 ? n : undefined
  }
  const size = poolSizeFor(cores)
  return size < NODE_DEFAULT_POOL ? size : undefined
}

type Sig = 'SIGINT' | 'SIGTERM'

/** this process is a gateway its launcher started (set by relaunchIfWanted) */
let relaunched = false

/**
 * When `argv` should run with a sized pool: starts `script argv` again with it and resolves with the
 * child's exit code once it is gone. Undefined (at once) when this process should run the CLI itself.
 */
export function relaunchIfWanted(script: string, argv: string[]): Promise<number> | undefined {
  if (process.env[RELAUNCHED_ENV]) {
    // we are the relaunched gateway: remembered here, and not passed on to the tools' processes
    relaunched = true
    delete process.env[RELAUNCHED_ENV]
    takeLauncherClaimEnv()
    return undefined
  }
  const size = relaunchPoolSize(argv, process.execArgv, process.env, os.availableParallelism())
  if (size === undefined) return undefined
  // the state dir is claimed now, for the gateway: its own start (a second process load) comes later
  const unclaim = claimForGateway(argv.slice(2), process.env)
  const child = spawn(process.execPath, [...process.execArgv, `--v8-pool-size=${size}`, script, ...argv], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [RELAUNCHED_ENV]: '1', ...(unclaim ? { [LAUNCHER_CLAIM_ENV]: String(process.pid) } : {}) },
  })
  // the gateway took the record over; if it never did (it failed first), ours goes with us
  if (unclaim) child.once('exit', unclaim)
  const got: Record<Sig, number> = { SIGINT: 0, SIGTERM: 0 }
  const reported: Record<Sig, number> = { SIGINT: 0, SIGTERM: 0 }
  const timers = new Set<NodeJS.Timeout>()
  child.on('message', (m) => {
    const sig = (m as { loopdeskSignal?: unknown })?.loopdeskSignal
    if (sig === 'SIGINT' || sig === 'SIGTERM') reported[sig]++
  })
  const onSignal = (sig: Sig) => {
    got[sig]++
    const t = setTimeout(() => {
      timers.delete(t)
      // the child got fewer of this signal than we did: it was sent to us alone
      if (reported[sig] < got[sig] && child.exitCode === null && child.signalCode === null) {
        reported[sig]++
        child.kill(sig)
      }
    }, FORWARD_AFTER_MS)
    timers.add(t)
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return new Promise<number>((resolve) => {
    child.on('error', (err) => {
      process.stderr.write(`loopdesk: could not start the gateway process: ${err.message}\n`)
      resolve(1)
    })
    child.on('exit', (code, signal) => {
      for (const t of timers) clearTimeout(t)
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      // the shell says "Killed" only about the process it started, this launcher, which exits normally: say it
      // here, or a gateway killed from outside (the OOM killer, kill -9) vanishes without a word (not for
      // Ctrl-C, which the shell does not report either)
      if (signal && signal !== 'SIGINT' && signal !== 'SIGPIPE') process.stderr.write(`loopdesk: the gateway (pid ${child.pid}) was killed by ${signal}\n`)
      resolve(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 0))
    })
  })
}

/**
 * In a relaunched gateway: tells the launcher about a signal this process got (so it is not forwarded
 * again), and calls `onParentGone` when the launcher is gone (no terminal or supervisor reaches us then).
 */
export function relaunchedChildHooks(onParentGone: () => void): { reportSignal(sig: NodeJS.Signals): void; dispose(): void } {
  if (!relaunched || !process.send) return { reportSignal: () => {}, dispose: () => {} }
  process.channel?.unref() // the channel alone must not keep a finished gateway alive
  const gone = () => onParentGone()
  process.on('disconnect', gone)
  return {
    reportSignal: (sig) => {
      if (process.connected) process.send!({ loopdeskSignal: sig })
    },
    dispose: () => process.off('disconnect', gone),
  }
}
