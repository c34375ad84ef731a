// Find-in-conversation bench: one session of BENCH_REPLIES assistant replies (BENCH_MIN_KB–BENCH_MAX_KB of
// markdown each: headings, paragraphs with emphasis, links, entities and escapes, lists, tables, code fences)
// after a short user message each; every BENCH_MATCH_EVERY-th reply holds the query word a few times.
// Prints `loopdesk.chat.find` through the real runtime's dispatch: the first query of the process (cold: no
// rendered text cached), the same query again (warm), the query typed letter by letter, a query no line holds,
// and the same after the transcript changed (one reply appended). Then where a cold query's time goes, step by
// step (read, line prefilter, JSON.parse, rendering markdown to text, counting) on the same file.
// Usage: npm run bench:find   (BENCH_REPLIES=400 BENCH_MIN_KB=20 BENCH_MAX_KB=40 BENCH_MATCH_EVERY=2,
// BENCH_COLD_QUERY=ulaanbaatar)
// BENCH_CPU_PROFILE=<file.cpuprofile> writes a CPU profile of the cold query; BENCH_WRITE_TRANSCRIPT=<file> only
// writes the transcript there.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { profiled } from './cpu-profile'
import { dispatch } from '../src/main/api/dispatch'
import { createRuntime } from '../src/main/runtime/runtime'
import { memoryCredentials } from '../test/fixtures/memory-credentials'
import { countOccurrences } from '../src/shared/message-search'
import { renderedMarkdownText } from '../src/shared/rendered-text'

const REPLIES = Number(process.env.BENCH_REPLIES ?? 400)
const MIN_KB = Number(process.env.BENCH_MIN_KB ?? 20)
const MAX_KB = Number(process.env.BENCH_MAX_KB ?? 40)
const MATCH_EVERY = Number(process.env.BENCH_MATCH_EVERY ?? 2)
const QUERY = 'ulaanbaatar'
/** the first query of the process (e.g. "u", the first letter typed: nearly every reply holds it) */
const COLD_QUERY = process.env.BENCH_COLD_QUERY ?? QUERY

// a fixed sequence, so two runs build the same transcript
let seed = 42
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]
const WORDS = 'the a of to and in is it for on with as by at this that from be are was or an which config value server request session message file build test run queue window render token stream'.split(' ')
const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(' ')

function paragraph(match: boolean): string {
  const bits = [words(12), `**${words(2)}**`, words(8), `[${words(2)}](https://example.com/${pick(WORDS)}/${pick(WORDS)})`, words(6), `\`${pick(WORDS)}()\``, words(10), 'AT&amp;T \\* 3', words(9)]
  if (match) bits.splice(3, 0, `*Ulaanbaatar*`, words(3), 'ulaanbaatar')
  return `${bits.join(' ')}.`
}

function reply(i: number): string {
  const size = (MIN_KB + rand() * (MAX_KB - MIN_KB)) * 1024
  const match = i % MATCH_EVERY === 0
  const out: string[] = []
  let n = 0
  for (let k = 0; n < size; k++) {
    let b: string
    switch (k % 6) {
      case 0:
        b = `## ${words(4)} ${k}`
        break
      case 2:
        b = Array.from({ length: 5 }, () => `- ${words(6)} **${pick(WORDS)}** ${words(4)}`).join('\n')
        break
      case 3:
        b = ['| a | b | c |', '|---|---|---|', ...Array.from({ length: 4 }, () => `| ${words(2)} | \`${pick(WORDS)}\` | ${words(3)} |`)].join('\n')
        break
      case 4:
        b = ['```ts', ...Array.from({ length: 8 }, () => `const ${pick(WORDS)}_${k} = ${pick(WORDS)}(${JSON.stringify(words(3))}) // ${words(4)}`), '```'].join('\n')
        break
      default:
        b = paragraph(match && k % 12 === 1)
    }
    out.push(b)
    n += b.length + 2
  }
  return out.join('\n\n')
}

function transcript(replies: number): string {
  const lines = [JSON.stringify({ type: 'session', version: 3, id: 'bench', timestamp: '2026-01-01T00:00:00Z', cwd: '/work' })]
  for (let i = 0; i < replies; i++) {
    lines.push(JSON.stringify({ type: 'message', id: `u${i}`, parentId: null, timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content: `question ${i}: ${words(12)}`, timestamp: 0 } }))
    lines.push(JSON.stringify({ type: 'message', id: `a${i}`, parentId: `u${i}`, timestamp: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: [{ type: 'text', text: reply(i) }], timestamp: 0 } }))
  }
  return `${lines.join('\n')}\n`
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6
const fmt = (n: number) => `${n.toFixed(1).padStart(8)} ms`

async function main() {
  if (process.env.BENCH_WRITE_TRANSCRIPT) {
    // just the transcript, for profiling a step elsewhere
    fs.writeFileSync(process.env.BENCH_WRITE_TRANSCRIPT, transcript(REPLIES))
    return
  }
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-find-bench-'))
  const runtime = await createRuntime({ stateDir, env: {}, credentials: memoryCredentials(), modelRetries: 0, watchConfig: false })
  const call = async (method: string, params: object) => {
    const r = await dispatch(runtime.handlers, method as never, params, { transport: 'local' })
    if (!r.ok) throw new Error(`${method}: ${r.error.message}`)
    return r.data as any
  }
  try {
    const sessionKey = 'agent:main:find-bench'
    await call('sessions.create', { key: sessionKey })
    const file = runtime.core.store('main').transcriptPath(runtime.core.store('main').get(sessionKey)!.sessionId!)
    const text = transcript(REPLIES)
    fs.writeFileSync(file, text)
    console.log(`transcript: ${REPLIES} replies, ${(text.length / 1e6).toFixed(1)} M characters, every ${MATCH_EVERY}th reply matches "${QUERY}"`)

    const find = async (query: string, label: string) => {
      const t0 = process.hrtime.bigint()
      const c0 = process.cpuUsage()
      const r = await call('loopdesk.chat.find', { sessionKey, query })
      const wall = ms(t0)
      const cpu = process.cpuUsage(c0)
      // CPU time too: on a shared box the wall clock also counts other processes' turns
      console.log(`${label.padEnd(44)}${fmt(wall)} (cpu ${fmt((cpu.user + cpu.system) / 1000)})  total ${r.total}, occurrences ${r.occurrences}${r.partial ? ', PARTIAL' : ''}`)
      return r
    }
    await profiled(() => find(COLD_QUERY, `cold (first query: "${COLD_QUERY}")`))
    if (process.env.BENCH_CPU_PROFILE) console.log(`  profile written to ${process.env.BENCH_CPU_PROFILE}`)
    await find(COLD_QUERY, 'warm (same query)')
    const base = await find(QUERY, `"${QUERY}"`)
    for (let n = 1; n <= 5; n++) await find(QUERY.slice(0, n), `typed: "${QUERY.slice(0, n)}"`)
    await find('at&t', 'warm, rendered-only match ("at&t")')
    await find('zzqx nowhere', 'no line holds it')
    // the sidebar's search reads the same transcript (the newest match; its words are everywhere, the phrase nowhere)
    for (const query of ['at&t', 'server the request zzqx', 'queue of the window token']) {
      const t0 = process.hrtime.bigint()
      const r = await call('loopdesk.sessions.search', { query })
      console.log(`${`sidebar search "${query}"`.padEnd(44)}${fmt(ms(t0))}  ${r.matches.length} session(s)${r.partial ? ', PARTIAL' : ''}`)
    }
    fs.appendFileSync(file, `${JSON.stringify({ type: 'message', id: 'late', parentId: null, timestamp: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: [{ type: 'text', text: 'one more about **Ulaanbaatar**' }], timestamp: 0 } })}\n`)
    const after = await find(QUERY, 'after one reply appended')
    if (after.total !== base.total + 1) console.log(`  !! expected ${base.total + 1} matches after the append, got ${after.total}`)

    // where a cold query's time goes, step by step, on a copy of the rendering cache that starts empty
    // (what was rendered above is cached in this process: the fresh-module numbers come from a child)
    console.log('\nsteps of one scan (this process; rendering timed on texts not rendered before):')
    let t0 = process.hrtime.bigint()
    const raw = fs.readFileSync(file, 'utf8')
    console.log(`${'read the file'.padEnd(44)}${fmt(ms(t0))}`)
    t0 = process.hrtime.bigint()
    const lines = raw.split('\n')
    let lowered = 0
    for (const l of lines) lowered += l.toLowerCase().length
    console.log(`${'split + lowercase every line'.padEnd(44)}${fmt(ms(t0))}  (${lowered} chars)`)
    t0 = process.hrtime.bigint()
    const entries = lines.filter(Boolean).map((l) => JSON.parse(l) as { message?: { role?: string; content?: unknown } })
    console.log(`${'JSON.parse every line'.padEnd(44)}${fmt(ms(t0))}`)
    const texts = entries.flatMap((e) => (e.message?.role === 'assistant' && Array.isArray(e.message.content) ? e.message.content.map((c: { text: string }) => `${c.text}\n<!-- fresh -->`) : []))
    t0 = process.hrtime.bigint()
    for (const s of texts) renderedMarkdownText(s)
    console.log(`${'render every reply to text (uncached)'.padEnd(44)}${fmt(ms(t0))}  (${texts.length} replies)`)
    t0 = process.hrtime.bigint()
    let c = 0
    for (const e of entries) if (e.message) c += countOccurrences(e.message, QUERY)
    console.log(`${'count occurrences (what is cached now)'.padEnd(44)}${fmt(ms(t0))}  (${c})`)
  } finally {
    await runtime.shutdown({ drainMs: 0 })
    fs.rmSync(stateDir, { recursive: true, force: true })
  }
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
