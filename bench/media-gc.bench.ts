// Media collector bench: a state dir of BENCH_SESSIONS transcripts (BENCH_TRANSCRIPT_KB each, realistic JSONL
// lines with uuids in them: run ids, entry ids) and BENCH_MEDIA saved attachments, one in BENCH_ORPHAN_EVERY of
// them named by no transcript. Prints the time of one full pass (every source read: there are orphans), of a
// pass where every candidate is referenced (it stops once all are found), and of the delete path's targeted
// pass, plus the event-loop's longest stall during the full pass.
// Usage: npx tsx bench/media-gc.bench.ts   (BENCH_SESSIONS=1000 BENCH_TRANSCRIPT_KB=100 BENCH_MEDIA=2000 by default)
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { collectInboundMedia } from '../src/main/runtime/media/media-gc'
import { newInboundName } from '../src/main/runtime/media/inbound-names'

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000)
const TRANSCRIPT_KB = Number(process.env.BENCH_TRANSCRIPT_KB ?? 100)
const MEDIA = Number(process.env.BENCH_MEDIA ?? 2000)
const ORPHAN_EVERY = Number(process.env.BENCH_ORPHAN_EVERY ?? 10)

const sd = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-media-bench-'))
const inbound = path.join(sd, 'media', 'inbound')
const sessions = path.join(sd, 'agents', 'main', 'sessions')
fs.mkdirSync(inbound, { recursive: true })
fs.mkdirSync(sessions, { recursive: true })

const media: string[] = []
for (let i = 0; i < MEDIA; i++) {
  const f = path.join(inbound, newInboundName('png'))
  fs.writeFileSync(f, 'x')
  media.push(f)
}
const referenced = media.filter((_, i) => i % ORPHAN_EVERY !== 0)
const line = () =>
  JSON.stringify({
    type: 'message',
    id: randomUUID(),
    runId: randomUUID(),
    message: { role: 'assistant', content: [{ type: 'text', text: 'Lorem ipsum dolor sit amet, '.repeat(12) }] },
  }) + '\n'
let bytes = 0
for (let s = 0; s < SESSIONS; s++) {
  const parts: string[] = [JSON.stringify({ type: 'session', id: randomUUID() }) + '\n']
  let size = 0
  // this session's attachments, spread through the file
  const mine = referenced.filter((_, i) => i % SESSIONS === s)
  while (size < TRANSCRIPT_KB * 1024) {
    const l = mine.length && parts.length % 7 === 0 ? JSON.stringify({ type: 'message', message: { role: 'user', content: `saved at ${mine.pop()}` } }) + '\n' : line()
    parts.push(l)
    size += l.length
  }
  for (const f of mine) parts.push(`saved at ${f}\n`)
  const text = parts.join('')
  bytes += text.length
  fs.writeFileSync(path.join(sessions, `${randomUUID()}.jsonl`), text)
}

const lag = monitorEventLoopDelay({ resolution: 1 })
const mb = (n: number) => (n / 1024 / 1024).toFixed(0)
async function main() {
  console.log(`state dir: ${SESSIONS} transcripts, ${mb(bytes)} MB; ${MEDIA} media files, ${MEDIA - referenced.length} unreferenced`)
  // the page cache is warm after writing; this is the CPU + syscall cost
  lag.enable()
  const full = await collectInboundMedia({ stateDir: sd, graceMs: 0 })
  lag.disable()
  console.log(
    `full pass: ${full.durationMs} ms, read ${full.scan!.files} files / ${mb(full.scan!.bytes)} MB in ${full.scan!.rounds} round(s), removed ${full.removed.length}, kept ${full.kept}; longest event-loop stall ${(lag.max / 1e6).toFixed(1)} ms`,
  )
  const allReferenced = await collectInboundMedia({ stateDir: sd, graceMs: 0 })
  console.log(`pass with every candidate referenced: ${allReferenced.durationMs} ms, read ${mb(allReferenced.scan!.bytes)} MB`)
  const target = new Set([path.basename(referenced[0]).slice(0, 36)])
  const one = await collectInboundMedia({ stateDir: sd, graceMs: 0, only: target })
  console.log(`targeted pass for one referenced file (delete path): ${one.durationMs} ms, read ${mb(one.scan!.bytes)} MB`)
  const none = await collectInboundMedia({ stateDir: sd, graceMs: 3_600_000 })
  console.log(`pass with no file past the grace age: ${none.durationMs} ms (no transcript read)`)
}

main()
  .finally(() => fs.rmSync(sd, { recursive: true, force: true }))
  .catch((err) => {
    console.error(err)
    process.exitCode = 1
  })
