// The `loopdesk` CLI as real processes (bin/loopdesk.mjs), for the CLI's process-level tests.
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const BIN = fileURLToPath(new URL('../../bin/loopdesk.mjs', import.meta.url))

/** One CLI invocation to its end; `env` is added to this process's environment. */
/** Runs the CLI to its end; `.child` is the process (a test can stop it when it never ends). */
export function runBin(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> & { child: ChildProcess } {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } })
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => (stdout += d))
    child.stderr.on('data', (d) => (stderr += d))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
  return Object.assign(done, { child })
}

export interface GatewayProcess {
  child: ChildProcess
  url: string
  /** stdout and stderr so far */
  output(): string
  /** the exit code once the process is gone */
  exited: Promise<number | null>
}

/**
 * `loopdesk gateway run --port 0` (+ `args`), resolved once it says it is listening. `detached`: in its own process
 * group, so a test can signal the whole group as a terminal's Ctrl-C does.
 */
export function startGatewayProcess(env: NodeJS.ProcessEnv, opts: { detached?: boolean; args?: string[] } = {}): Promise<GatewayProcess> {
  const child = spawn(process.execPath, [BIN, 'gateway', 'run', '--port', '0', ...(opts.args ?? [])], { env: { ...process.env, ...env }, detached: opts.detached })
  let out = ''
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start: ${out}`)), 30_000)
    const onData = (d: Buffer) => {
      out += d
      const m = /listening on (ws:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve({ child, url: m[1], output: () => out, exited })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (d) => (out += d))
    child.on('close', (code) => reject(new Error(`gateway exited early (${code}): ${out}`)))
  })
}

/** Kills a detached process's whole group (the launcher and the gateway it started); gone already is fine. */
export function killGroup(pid: number | undefined): void {
  try {
    if (pid) process.kill(-pid, 'SIGKILL')
  } catch {
    // the group is gone
  }
}
