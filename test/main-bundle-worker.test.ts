// The app's built main (electron.vite.config.ts) ships the gateway's socket-thread worker where the built gateway
// looks for it — beside the chunk that holds socket-thread-entry.ts — bundled whole by esbuild without `electron`,
// and it runs in plain Node: started with a port of 0 it listens and answers HTTP.
import { existsSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { resolveConfig } from 'electron-vite'
import { build, type Rollup } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SocketThreadData } from '../src/main/gateway/socket-thread-protocol'

const root = resolve(import.meta.dirname, '..')
// under node_modules: the built code's package imports (externalized) resolve from there, as out/main's do
const outDir = join(root, 'node_modules', '.cache', `loopdesk-test-main-${process.pid}`)
let chunks: Rollup.OutputChunk[] = []

beforeAll(async () => {
  // as `npx electron-vite build` does (main only): under Vitest NODE_ENV is "test"
  const env = { NODE_ENV: process.env.NODE_ENV, NODE_ENV_ELECTRON_VITE: process.env.NODE_ENV_ELECTRON_VITE }
  process.env.NODE_ENV = process.env.NODE_ENV_ELECTRON_VITE = 'production'
  try {
    const { config } = await resolveConfig({ configFile: join(root, 'electron.vite.config.ts'), root, build: { outDir }, logLevel: 'silent' }, 'build', 'production')
    const out = (await build(config!.main!)) as Rollup.RollupOutput
    chunks = out.output.filter((o): o is Rollup.OutputChunk => o.type === 'chunk')
  } finally {
    for (const [k, v] of Object.entries(env)) {
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
    }
  }
}, 120_000)
afterAll(() => rmSync(outDir, { recursive: true, force: true }))

const mainDir = () => join(outDir, 'main')

describe('the built main ships the socket thread', () => {
  it('the worker sits where the chunk that starts it looks: beside it, as socket-thread-worker.mjs', () => {
    const starters = chunks.filter((c) => c.moduleIds.some((id) => id.endsWith('src/main/gateway/socket-thread-entry.ts')))
    expect(starters).toHaveLength(1)
    expect(starters[0].code).toContain('new URL("./socket-thread-worker.mjs", ') // how it looks: beside its own URL
    expect(existsSync(join(mainDir(), dirname(starters[0].fileName), 'socket-thread-worker.mjs'))).toBe(true)
  })

  it('is the worker, every module it runs inlined, electron not among them', () => {
    // esbuild's source map lists every input it bundled
    const { sources } = JSON.parse(readFileSync(join(mainDir(), 'socket-thread-worker.mjs.map'), 'utf8')) as { sources: string[] }
    expect(sources.some((f) => f.endsWith('src/main/gateway/socket-thread-worker.ts'))).toBe(true)
    expect(sources.some((f) => /node_modules\/typebox\//.test(f))).toBe(true)
    expect(sources.filter((f) => /node_modules\/electron\/|src\/main\/index\.ts$/.test(f))).toEqual([])
  })

  it('starts in plain Node: listens on the port it was given (0: any) and answers HTTP', async () => {
    const data: SocketThreadData = { port: 0, bind: 'loopback', fallback: false, staticDir: undefined, preauthMaxPayload: 64 * 1024, maxBufferedBytes: 1 << 20, dedupeTtlMs: 60_000, dedupeMax: 100, view: undefined }
    const w = new Worker(pathToFileURL(join(mainDir(), 'socket-thread-worker.mjs')), { workerData: data })
    try {
      const port = await new Promise<number>((res, rej) => {
        w.on('error', rej)
        w.on('exit', (code) => rej(new Error(`the worker exited (${code})`)))
        w.on('message', (m: { t: string; port?: number }) => m.t === 'listening' && res(m.port!))
      })
      expect(port).toBeGreaterThan(0)
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404) // no static dir: nothing to serve
    } finally {
      await w.terminate()
    }
  }, 60_000)
})
