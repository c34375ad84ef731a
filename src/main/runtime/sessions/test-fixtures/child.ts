// Spawning helpers for tests that need a second process.
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
export const STORE_CHILD = path.join(here, 'store-child.ts')

export function spawnChild(args: string[]): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', STORE_CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
}

export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = ''
  child.stderr?.on('data', (d) => (stderr += String(d)))
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, stderr })))
}

export function waitForLine(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let buf = ''
    child.stdout?.on('data', (d) => {
      buf += String(d)
      if (buf.includes(line)) resolve()
    })
    child.once('exit', (code) => reject(new Error(`child exited (${code}) before printing ${line}`)))
  })
}

/** A pid that surely belongs to no running process: a child that already exited. */
export async function deadPid(): Promise<number> {
  const c = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  const pid = c.pid!
  await new Promise((r) => c.once('exit', r))
  return pid
}
