import { execFileSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GLOB_MAX_RESULTS } from './glob'
import { GREP_MAX_MATCHES, GREP_MAX_SCAN_LINE_CHARS } from './grep'
import { READ_MAX_CHARS } from './read'
import { WRITE_MAX_BYTES } from './write'
import { makeCtx, makeSandbox, run, textOf, type Sandbox, type TestCtx } from './test-helpers'

let sb: Sandbox
let ctx: TestCtx
beforeEach(() => {
  sb = makeSandbox()
  ctx = makeCtx(sb.ws)
})
afterEach(() => sb.cleanup())

const put = (rel: string, content: string | Buffer) => {
  const p = path.join(sb.ws, rel)
  mkdirSync(path.dirname(p), { recursive: true })
  writeFileSync(p, content)
}
const get = (rel: string) => readFileSync(path.join(sb.ws, rel), 'utf8')

describe('read', () => {
  it('returns the text of a file', async () => {
    put('a.txt', 'one\ntwo\nthree\n')
    const r = await run(ctx, 'read', { path: 'a.txt' })
    expect(textOf(r)).toBe('one\ntwo\nthree')
    expect(r.details).toMatchObject({ path: 'a.txt', lines: 3 })
  })

  it('pages with offset/limit and says how to continue', async () => {
    put('n.txt', Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'))
    const r = await run(ctx, 'read', { path: 'n.txt', offset: 3, limit: 2 })
    expect(textOf(r)).toBe('line 3\nline 4\n\n[Showing lines 3-4 of 10. Use offset=5 to continue.]')
    await expect(run(ctx, 'read', { path: 'n.txt', offset: 11 })).rejects.toThrow(/beyond the end .*10 lines/)
  })

  it('caps very long output by characters', async () => {
    put('big.txt', Array.from({ length: 1500 }, () => 'x'.repeat(99)).join('\n'))
    const t = textOf(await run(ctx, 'read', { path: 'big.txt' }))
    expect(t.length).toBeLessThan(READ_MAX_CHARS + 200)
    expect(t).toMatch(/Use offset=\d+ to continue/)
  })

  it('refuses binary files, directories and missing files with clear messages', async () => {
    put('bin.dat', Buffer.from([1, 2, 0, 3, 4]))
    mkdirSync(path.join(sb.ws, 'dir'))
    await expect(run(ctx, 'read', { path: 'bin.dat' })).rejects.toThrow(/binary/)
    await expect(run(ctx, 'read', { path: 'dir' })).rejects.toThrow(/directory/)
    await expect(run(ctx, 'read', { path: 'missing.txt' })).rejects.toThrow(/File not found/)
  })

  it.skipIf(process.platform === 'win32')('refuses a FIFO at once instead of blocking until a writer comes (read, edit, grep)', async () => {
    execFileSync('mkfifo', [path.join(sb.ws, 'pipe')])
    const within = <T,>(p: Promise<T>) =>
      Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('still blocked after 3 s')), 3000))])
    await expect(within(run(ctx, 'read', { path: 'pipe' }))).rejects.toThrow(/not a regular file/)
    await expect(within(run(ctx, 'edit', { path: 'pipe', oldText: 'a', newText: 'b' }))).rejects.toThrow(/not a regular file/)
    put('a.txt', 'hello\n')
    expect(textOf(await within(run(ctx, 'grep', { pattern: 'hello', path: 'pipe' })))).toMatch(/^No matches/)
    expect(textOf(await within(run(ctx, 'grep', { pattern: 'hello' })))).toBe('a.txt:1: hello')
  })

  it.skipIf(process.platform === 'win32')('refuses a device or a socket without opening it (a workspace that holds /dev)', async () => {
    const dev = makeCtx('/dev')
    await expect(run(dev, 'read', { path: 'null' })).rejects.toThrow(/"null" is a device, not a regular file/)
    await expect(run(dev, 'edit', { path: 'zero', oldText: 'a', newText: 'b' })).rejects.toThrow(/is a device/)
    await expect(run(dev, 'grep', { pattern: 'x', path: 'null' })).resolves.toBeDefined() // passes over it, as over a FIFO
    const server = net.createServer()
    await new Promise<void>((resolve) => server.listen(path.join(sb.ws, 'sock'), resolve))
    try {
      await expect(run(ctx, 'read', { path: 'sock' })).rejects.toThrow(/"sock" is a socket, not a regular file/)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('returns PNG files as image blocks', async () => {
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
    put('pic.png', png)
    const r = await run(ctx, 'read', { path: 'pic.png' })
    const img = r.content.find((c) => c.type === 'image')
    expect(img).toMatchObject({ type: 'image', mimeType: 'image/png', data: png.toString('base64') })
  })

  it('honours an aborted signal', async () => {
    put('a.txt', 'x')
    const ac = new AbortController()
    ac.abort()
    await expect(run(ctx, 'read', { path: 'a.txt' }, { signal: ac.signal })).rejects.toThrow(/aborted/)
  })
})

describe('write', () => {
  it('creates parent directories and the file', async () => {
    const r = await run(ctx, 'write', { path: 'deep/er/new.txt', content: 'hello\n' })
    expect(get('deep/er/new.txt')).toBe('hello\n')
    expect(textOf(r)).toMatch(/Created deep\/er\/new.txt \(6 bytes\)/)
  })

  it('overwrites atomically, keeps the file mode and leaves no temp files', async () => {
    put('x.sh', 'old')
    chmodSync(path.join(sb.ws, 'x.sh'), 0o750)
    const r = await run(ctx, 'write', { path: 'x.sh', content: 'new content' })
    expect(textOf(r)).toMatch(/Overwrote/)
    expect(get('x.sh')).toBe('new content')
    expect(statSync(path.join(sb.ws, 'x.sh')).mode & 0o777).toBe(0o750)
    expect(readdirSync(sb.ws)).toEqual(['x.sh'])
  })

  it('writes through a symlink that stays inside the workspace by replacing its target path', async () => {
    put('real/t.txt', 'a')
    symlinkSync(path.join(sb.ws, 'real'), path.join(sb.ws, 'alias'))
    await run(ctx, 'write', { path: 'alias/t.txt', content: 'b' })
    expect(get('real/t.txt')).toBe('b')
  })

  it('refuses directories and the workspace root', async () => {
    mkdirSync(path.join(sb.ws, 'd'))
    await expect(run(ctx, 'write', { path: 'd', content: 'x' })).rejects.toThrow(/directory/)
    await expect(run(ctx, 'write', { path: '.', content: 'x' })).rejects.toThrow(/must name a file/)
    put('file', 'x')
    await expect(run(ctx, 'write', { path: 'file/child.txt', content: 'x' })).rejects.toThrow(/not a directory|file with that name/)
  })
})

describe('edit', () => {
  it('replaces a unique exact match', async () => {
    put('e.ts', 'const a = 1\nconst b = 2\n')
    const r = await run(ctx, 'edit', { path: 'e.ts', oldText: 'const b = 2', newText: 'const b = 3' })
    expect(get('e.ts')).toBe('const a = 1\nconst b = 3\n')
    expect(textOf(r)).toMatch(/replaced 1 occurrence \(first at line 2\)/)
  })

  it('errors on zero matches (with a whitespace hint) and on ambiguous matches', async () => {
    put('e.ts', 'foo()\nfoo()\n  bar(  1 )\n')
    await expect(run(ctx, 'edit', { path: 'e.ts', oldText: 'nope', newText: 'x' })).rejects.toThrow(/not found/)
    await expect(run(ctx, 'edit', { path: 'e.ts', oldText: 'bar( 1 )', newText: 'x' })).rejects.toThrow(/whitespace/)
    await expect(run(ctx, 'edit', { path: 'e.ts', oldText: 'foo()', newText: 'x' })).rejects.toThrow(/matches 2 times/)
    await expect(run(ctx, 'edit', { path: 'e.ts', oldText: '', newText: 'x' })).rejects.toThrow(/must not be empty/)
    expect(get('e.ts')).toBe('foo()\nfoo()\n  bar(  1 )\n')
  })

  it('replaceAll replaces every occurrence; $ in newText is literal', async () => {
    put('e.ts', 'foo()\nfoo()\n')
    await run(ctx, 'edit', { path: 'e.ts', oldText: 'foo', newText: "$&$1$'", replaceAll: true })
    expect(get('e.ts')).toBe("$&$1$'()\n$&$1$'()\n")
  })

  it('matches LF oldText against a CRLF file and keeps CRLF', async () => {
    put('w.txt', 'a\r\nb\r\nc\r\n')
    await run(ctx, 'edit', { path: 'w.txt', oldText: 'a\nb', newText: 'A\nB' })
    expect(get('w.txt')).toBe('A\r\nB\r\nc\r\n')
  })

  it('refuses an edit whose result would exceed the write limit, and changes nothing', async () => {
    // 100,000 one-character matches, each replaced by 200 characters: a 20 MB result from a 100 kB file
    put('many.txt', 'a'.repeat(100_000))
    await expect(run(ctx, 'edit', { path: 'many.txt', oldText: 'a', newText: 'b'.repeat(200), replaceAll: true })).rejects.toThrow(
      /would be 19\.\d MB \(100000 replacements\), over the 10(\.0)? MB limit/,
    )
    expect(statSync(path.join(sb.ws, 'many.txt')).size).toBe(100_000)
    // growth up to the limit is fine
    await run(ctx, 'edit', { path: 'many.txt', oldText: 'a', newText: 'bb', replaceAll: true })
    expect(statSync(path.join(sb.ws, 'many.txt')).size).toBe(200_000)
    expect(WRITE_MAX_BYTES).toBeLessThan(20_000_000)
  })
})

describe('ls', () => {
  it('lists entries with type markers and sizes', async () => {
    put('f.txt', 'abc')
    mkdirSync(path.join(sb.ws, 'sub'))
    symlinkSync('f.txt', path.join(sb.ws, 'l'))
    const t = textOf(await run(ctx, 'ls', {}))
    expect(t.split('\n')).toEqual(['f.txt  (3 B)', 'l@', 'sub/'])
    expect(textOf(await run(ctx, 'ls', { path: 'sub' }))).toMatch(/is empty/)
  })
})

describe('glob', () => {
  beforeEach(() => {
    for (const f of ['a.ts', 'b.js', 'src/x.ts', 'src/deep/y.ts', 'src/deep/z.tsx', 'docs/r.md', 'node_modules/m/i.ts', '.git/h.ts', '.hidden.ts']) {
      put(f, '')
    }
  })
  const g = async (pattern: string, p?: string) => textOf(await run(ctx, 'glob', { pattern, path: p })).split('\n')

  it('matches *, **, ?, {a,b} and skips node_modules/.git', async () => {
    expect(await g('*.ts')).toEqual(['.hidden.ts', 'a.ts'])
    expect(await g('**/*.ts')).toEqual(['.hidden.ts', 'a.ts', 'src/deep/y.ts', 'src/x.ts'])
    expect(await g('src/**/*.{ts,tsx}')).toEqual(['src/deep/y.ts', 'src/deep/z.tsx', 'src/x.ts'])
    expect(await g('?.js')).toEqual(['b.js'])
    expect(await g('src/*')).toEqual(['src/deep/', 'src/x.ts'])
    expect(await g('*.ts', 'src/deep')).toEqual(['src/deep/y.ts'])
  })

  it('a hostile pattern over long names ends at once (glob, and grep\'s glob filter)', async () => {
    put('a'.repeat(200) + '.txt', 'hello\n')
    const t0 = performance.now()
    expect(await g('*a'.repeat(30) + '*b')).toEqual([expect.stringMatching(/^No paths match/)])
    expect(textOf(await run(ctx, 'grep', { pattern: 'hello', glob: '*a'.repeat(30) + '*b' }))).toMatch(/^No matches/)
    expect(performance.now() - t0).toBeLessThan(2000)
  })

  it('reports no matches and caps results', async () => {
    expect((await g('*.nothing'))[0]).toMatch(/No paths match/)
    for (let i = 0; i < GLOB_MAX_RESULTS + 5; i++) put(`many/f${i}.txt`, '')
    const r = await run(ctx, 'glob', { pattern: 'many/*.txt' })
    expect(textOf(r)).toMatch(/5 more matches not shown/)
    expect(r.details).toMatchObject({ count: GLOB_MAX_RESULTS + 5, truncated: true })
  })
})

describe('grep', () => {
  it('finds matching lines with path:line and honours glob/ignoreCase', async () => {
    put('a.ts', 'hello world\nbye\n')
    put('src/b.ts', 'Hello again\n')
    put('src/c.md', 'hello md\n')
    put('bin.dat', Buffer.from('hello\0binary'))
    put('node_modules/x.ts', 'hello hidden')
    expect(textOf(await run(ctx, 'grep', { pattern: 'hel+o' })).split('\n')).toEqual(['a.ts:1: hello world', 'src/c.md:1: hello md'])
    expect(textOf(await run(ctx, 'grep', { pattern: 'hello', ignoreCase: true, glob: '*.ts' })).split('\n')).toEqual([
      'a.ts:1: hello world',
      'src/b.ts:1: Hello again',
    ])
    expect(textOf(await run(ctx, 'grep', { pattern: 'bye', path: 'a.ts' }))).toBe('a.ts:2: bye')
    expect(textOf(await run(ctx, 'grep', { pattern: 'zzz' }))).toMatch(/No matches/)
    await expect(run(ctx, 'grep', { pattern: '(' })).rejects.toThrow(/Invalid regular expression/)
  })

  it('caps the number of matches', async () => {
    put('many.txt', Array.from({ length: GREP_MAX_MATCHES + 50 }, () => 'match').join('\n'))
    const r = await run(ctx, 'grep', { pattern: 'match' })
    expect(textOf(r)).toMatch(/50 more matches not shown/)
    expect(r.details).toMatchObject({ matches: GREP_MAX_MATCHES + 50 })
  })

  it('a catastrophically backtracking pattern ends with a clear error and never blocks the event loop', async () => {
    put('a-fine.txt', 'aaa\n')
    put('evil.txt', 'a'.repeat(40) + '!\n') // (a+)+$ on this takes ~2^40 steps
    const quick = makeCtx(sb.ws, { grep: { regexTimeoutMs: 300 } })
    let ticks = 0
    const ticker = setInterval(() => ticks++, 20)
    const started = Date.now()
    try {
      const err = (await run(quick, 'grep', { pattern: '(a+)+$' }).catch((e) => e)) as Error
      expect(err).toBeInstanceOf(Error)
      expect(err.message).toMatch(/^grep stopped: the regular expression \/\(a\+\)\+\$\/ ran longer than 300 ms on evil\.txt\. It probably backtracks catastrophically/)
    } finally {
      clearInterval(ticker)
    }
    expect(Date.now() - started).toBeLessThan(3000)
    expect(ticks).toBeGreaterThanOrEqual(5) // the main thread kept running while the worker spun
    // the same tool works again right after (the shared worker was replaced)
    expect(textOf(await run(quick, 'grep', { pattern: 'a+$', path: 'a-fine.txt' }))).toBe('a-fine.txt:1: aaa')
  })

  it('abort stops a runaway pattern at once', async () => {
    put('evil.txt', 'a'.repeat(40) + '!\n')
    const ac = new AbortController()
    setTimeout(() => ac.abort(), 100)
    const started = Date.now()
    await expect(run(ctx, 'grep', { pattern: '(a+)+$' }, { signal: ac.signal })).rejects.toThrow(/aborted/)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('searches long lines only up to the scan limit and says so; refuses huge patterns', async () => {
    put('min.js', 'x'.repeat(GREP_MAX_SCAN_LINE_CHARS + 100) + 'needle\nneedle' + 'y'.repeat(GREP_MAX_SCAN_LINE_CHARS + 100) + '\n')
    const t = textOf(await run(ctx, 'grep', { pattern: 'needle' }))
    expect(t.split('\n')[0]).toMatch(/^min\.js:2: needley+…$/)
    expect(t).toContain(`[2 lines longer than ${GREP_MAX_SCAN_LINE_CHARS} characters searched in their first ${GREP_MAX_SCAN_LINE_CHARS} only]`)
    expect(t).not.toMatch(/min\.js:1:/)
    await expect(run(ctx, 'grep', { pattern: 'a'.repeat(2000) })).rejects.toThrow(/pattern too long/)
  })
})

describe('abort', () => {
  it('every tool refuses to start with an aborted signal and changes nothing', async () => {
    put('a.txt', 'abc')
    const ac = new AbortController()
    ac.abort()
    const calls: Array<[string, Record<string, unknown>]> = [
      ['read', { path: 'a.txt' }],
      ['write', { path: 'b.txt', content: 'x' }],
      ['edit', { path: 'a.txt', oldText: 'abc', newText: 'x' }],
      ['ls', {}],
      ['glob', { pattern: '**' }],
      ['grep', { pattern: 'a' }],
      ['exec', { command: 'touch c.txt' }],
      ['web_fetch', { url: 'http://127.0.0.1:9/' }],
      ['message', { text: 'hi' }],
    ]
    for (const [name, params] of calls) {
      await expect(run(ctx, name, params, { signal: ac.signal }), name).rejects.toThrow(/aborted/)
    }
    expect(readdirSync(sb.ws)).toEqual(['a.txt'])
    expect(get('a.txt')).toBe('abc')
    expect(ctx.sent).toEqual([])
  })

  it('a walk stops when aborted midway', async () => {
    for (let i = 0; i < 300; i++) put(`d${i % 30}/f${i}.txt`, 'needle')
    const ac = new AbortController()
    const p = run(ctx, 'grep', { pattern: 'needle' }, { signal: ac.signal })
    queueMicrotask(() => ac.abort())
    await expect(p).rejects.toThrow(/aborted/)
  })
})

describe('message', () => {
  it('sends at once and confirms', async () => {
    const r = await run(ctx, 'message', { text: '  Working on it  ' })
    expect(ctx.sent).toEqual(['Working on it'])
    expect(textOf(r)).toMatch(/Message sent/)
    await expect(run(ctx, 'message', { text: '   ' })).rejects.toThrow(/empty/)
    expect(existsSync(sb.ws)).toBe(true)
  })

  it('sends nothing for the silent token and says so', async () => {
    const before = ctx.sent.length
    const r = await run(ctx, 'message', { text: ' NO_REPLY ' })
    expect(ctx.sent.length).toBe(before)
    expect(textOf(r)).toMatch(/^Nothing was sent: NO_REPLY is the silent token/)
  })
})
