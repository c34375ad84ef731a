// `gateway run` relaunched with a sized V8 pool (v8-pool.ts) starts twice: the launcher and then the gateway, each
// loading the CLI. The gateway's runtime record (what a CLI command waits on: starting-gateway.ts) came only after
// both starts, so a command in those seconds said "no gateway is running". The launcher claims the state dir in
// its place as soon as it runs, and the gateway it starts takes the claim over (claimEmbeddedRuntime's `handoff`):
// a starting gateway is visible from the launcher's first moment, and nothing else can claim the folder between.
import { claimEmbeddedRuntime } from '../main/gateway/embedded-runtimes'
import { resolveStateDir } from './resolve'

/** set by the launcher for the gateway it starts: the pid whose record the gateway takes over */
export const LAUNCHER_CLAIM_ENV = 'LOOPDESK_LAUNCHER_CLAIM'

let handedOver: number | undefined

/** In the launcher of `gateway run`: the record for the gateway it is about to start, else undefined (the gateway decides then). */
export function claimForGateway(argv: string[], env: NodeJS.ProcessEnv): (() => void) | undefined {
  // --allow-second and --help do not claim; a state dir given twice or oddly is left to the gateway's own parse
  if (argv.some((a) => a === '--allow-second' || a === '--help' || a === '-h')) return undefined
  const i = argv.findIndex((a) => a === '--state-dir' || a.startsWith('--state-dir='))
  const given = i < 0 ? undefined : argv[i].includes('=') ? argv[i].slice('--state-dir='.length) : argv[i + 1]
  try {
    return claimEmbeddedRuntime(resolveStateDir(given, env), 'gateway')
  } catch {
    // in use, read-only, …: the gateway's own start says what is wrong
    return undefined
  }
}

/** In the relaunched gateway: reads (and drops from the environment) the launcher's claim, if it made one. */
export function takeLauncherClaimEnv(env: NodeJS.ProcessEnv = process.env): void {
  const pid = Number(env[LAUNCHER_CLAIM_ENV])
  delete env[LAUNCHER_CLAIM_ENV]
  // only the process that started us: a pid inherited from elsewhere must not let us ignore another runtime
  handedOver = Number.isInteger(pid) && pid > 0 && pid === process.ppid ? pid : undefined
}

/** the launcher's pid whose record this gateway takes over, if it claimed the state dir for us */
export function launcherClaim(): number | undefined {
  return handedOver
}
