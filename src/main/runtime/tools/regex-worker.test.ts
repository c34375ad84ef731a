import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { RegexSearcher, RegexTimeoutError, resetSharedRegexWorker, sharedRegexWorker } from './regex-worker'
import { ToolAbortedError } from './result'
import { makeCtx, makeSandbox, run, textOf, type Sandbox } from './test-helpers'

const opts = (budgetMs = 5_000) => ({ budgetMs, maxLineChars: 10_000 })
const EVIL = 'a'.repeat(40) + '!' // /(a+)+$/ on this takes ~2^40 steps
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

beforeEach(() => {
  resetSharedRegexWorker()
})
afterEach(() => sharedRegexWorker().close())

describe('the shared regex worker', () => {
  it('starts lazily and is reused by later searches and later grep calls (no second spawn)', async () => {
    const w = sharedRegexWorker()
    expect(w.spawned).toBe(0)
    expect(w.alive).toBe(false)
    const a = new RegexSearcher('b+', '', opts())
    expect(await a.search('abc\nxyz\nbb', 'f1')).toEqual({ hits: [0, 2], cut: 0 })
    a.close()
    expect(w.spawned).toBe(1)
    const b = new RegexSearcher('X', 'i', opts()) // another pattern, another call
    expect(await b.search('x\ny', 'f2')).toEqual({ hits: [0], cut: 0 })
    expect(await b.search('y\nX', 'f3')).toEqual({ hits: [1], cut: 0 })
    b.close()
    expect(w.spawned).toBe(1)
    // and through the grep tool
    const sb: Sandbox = makeSandbox()
    try {
      writeFileSync(path.join(sb.ws, 'a.txt'), 'hello\nworld\n')
      const ctx = makeCtx(sb.ws)
      expect(textOf(await run(ctx, 'grep', { pattern: 'wor' }))).toBe('a.txt:2: world')
      expect(textOf(await run(ctx, 'grep', { pattern: 'hel' }))).toBe('a.txt:1: hello')
    } finally {
      sb.cleanup()
    }
    expect(w.spawned).toBe(1)
  })

  it('a budget overrun kills the worker; the next search gets a fresh one and works', async () => {
    const w = sharedRegexWorker()
    const evil = new RegexSearcher('(a+)+$', '', opts(200))
    const started = Date.now()
    const err = await evil.search(EVIL, 'evil.txt').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(RegexTimeoutError)
    expect(Date.now() - started).toBeLessThan(3_000)
    // this call is over: the searcher refuses more work
    await expect(evil.search('aaa', 'x')).rejects.toBeInstanceOf(RegexTimeoutError)
    const next = new RegexSearcher('a+$', '', opts())
    expect(await next.search('aaa\nb', 'fine.txt')).toEqual({ hits: [0], cut: 0 })
    expect(w.spawned).toBe(2)
    expect(await next.search('b\naa', 'fine2.txt')).toEqual({ hits: [1], cut: 0 })
    expect(w.spawned).toBe(2)
  })

  it('searches of concurrent calls queue: a file waiting behind a runaway one keeps its whole budget', async () => {
    const w = sharedRegexWorker()
    const evil = new RegexSearcher('(a+)+$', '', opts(300))
    const fine = new RegexSearcher('ok', '', opts(300))
    const [bad, good] = await Promise.allSettled([evil.search(EVIL, 'evil.txt'), fine.search('not\nok', 'fine.txt')])
    expect(bad.status === 'rejected' && bad.reason).toBeInstanceOf(RegexTimeoutError)
    expect(good).toEqual({ status: 'fulfilled', value: { hits: [1], cut: 0 } })
    expect(w.spawned).toBe(2)
  })

  it('abort cuts off a running search at once and drops a queued one; the worker is replaced', async () => {
    const w = sharedRegexWorker()
    const running = new AbortController()
    const queued = new AbortController()
    const evil = new RegexSearcher('(a+)+$', '', opts(10_000))
    const other = new RegexSearcher('z', '', opts())
    const p1 = evil.search(EVIL, 'evil.txt', running.signal)
    const p2 = other.search('z', 'z.txt', queued.signal)
    queued.abort()
    await expect(p2).rejects.toBeInstanceOf(ToolAbortedError)
    await sleep(50)
    const started = Date.now()
    running.abort()
    await expect(p1).rejects.toBeInstanceOf(ToolAbortedError)
    expect(Date.now() - started).toBeLessThan(500)
    expect(await new RegexSearcher('a', '', opts()).search('a', 'a.txt')).toEqual({ hits: [0], cut: 0 })
    expect(w.spawned).toBe(2)
  })

  it('stops after its idle time and starts again on the next search', async () => {
    const w = resetSharedRegexWorker(50)
    const s = new RegexSearcher('a', '', opts())
    await s.search('a', 'a.txt')
    expect(w.alive).toBe(true)
    await sleep(200)
    expect(w.alive).toBe(false)
    expect(await s.search('b\na', 'b.txt')).toEqual({ hits: [1], cut: 0 })
    expect(w.spawned).toBe(2)
  })
})

describe('process exit', () => {
  it('an idle worker does not keep the process alive (a script that greps and never closes exits by itself)', async () => {
    const mod = path.join(path.dirname(fileURLToPath(import.meta.url)), 'regex-worker.ts')
    const script = `
      const { RegexSearcher, sharedRegexWorker } = await import(${JSON.stringify(mod)})
      const r = await new RegexSearcher('b', '', { budgetMs: 5000, maxLineChars: 100 }).search('a\\nb', 'x')
      console.log(JSON.stringify({ ...r, alive: sharedRegexWorker().alive }))
    `
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let errText = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (errText += d.toString()))
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL')
        reject(new Error(`the process did not exit by itself (stdout: ${out}; stderr: ${errText})`))
      }, 15_000)
      child.on('exit', (c) => {
        clearTimeout(timer)
        resolve(c)
      })
    })
    expect(errText.replace(/npm warn.*\n/g, '')).toBe('')
    expect(code).toBe(0)
    expect(JSON.parse(out)).toEqual({ hits: [1], cut: 0, alive: true }) // the worker still existed, idle
  }, 20_000)
})
