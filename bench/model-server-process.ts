// Starts test/fixtures/model-server-cli.ts as a child process for the benches, so the scripted server's
// CPU stays off the measured process. Resolves with its addresses once it prints them.
import { spawn } from 'node:child_process'
import path from 'node:path'
import readline from 'node:readline'
import { bundleEntry } from './bench-bundle'

// a bundled bench runs from node_modules/.cache: its launcher passes the checkout's root on
export const ROOT = process.env.LOOPDESK_BENCH_ROOT ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')

export async function startModelServerProcess(): Promise<{ url: string; openaiBaseUrl: string; pid: number; stop(): void }> {
  // bundled (BENCH_MODEL_TSX=1: through tsx): it stands in for a remote API, whose CPU is not this machine's
  const entry = process.env.BENCH_MODEL_TSX
    ? ['--import', 'tsx', path.join(ROOT, 'test/fixtures/model-server-cli.ts')]
    : [await bundleEntry(ROOT, 'test/fixtures/model-server-cli.ts', 'model-server-cli.mjs')]
  const child = spawn(process.execPath, entry, {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const line = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`model server exited (${code})`)))
  })
  const info = JSON.parse(line) as { url: string; openaiBaseUrl: string }
  return { url: info.url, openaiBaseUrl: info.openaiBaseUrl, pid: child.pid!, stop: () => child.kill('SIGTERM') }
}
