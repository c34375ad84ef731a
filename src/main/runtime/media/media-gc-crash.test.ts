// A collector killed with SIGKILL mid-pass: every referenced file and every transcript is intact, what it
// had not reached yet is still there, and the next pass finishes the job.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { collectInboundMedia } from './media-gc'
import { newInboundName } from './inbound-names'

const ROOT = path.resolve(__dirname, '../../../..')
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function runChild(stateDir: string, killAfter: number): Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/fixtures/media-gc-child.ts'), stateDir, String(killAfter)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    child.stderr.on('data', (d) => (out += d))
    child.on('exit', (code, signal) => resolve({ code, signal, out }))
  })
}

it('SIGKILL mid-pass leaves referenced files and transcripts intact; the next pass removes the rest', async () => {
  const sd = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-media-crash-'))
  dirs.push(sd)
  const inbound = path.join(sd, 'media', 'inbound')
  const sessions = path.join(sd, 'agents', 'main', 'sessions')
  fs.mkdirSync(inbound, { recursive: true })
  fs.mkdirSync(sessions, { recursive: true })
  const make = () => {
    const f = path.join(inbound, newInboundName('txt'))
    fs.writeFileSync(f, 'x')
    return f
  }
  const referenced = Array.from({ length: 5 }, make)
  const orphans = Array.from({ length: 20 }, make)
  const transcript = path.join(sessions, 's.jsonl')
  const text = referenced.map((f) => JSON.stringify({ type: 'message', message: { role: 'user', content: `saved at ${f}` } })).join('\n') + '\n'
  fs.writeFileSync(transcript, text)

  const r = await runChild(sd, 5)
  expect(r.signal, r.out).toBe('SIGKILL')
  const left = fs.readdirSync(inbound)
  // nothing but original files: no temp or half-written state of the collector's own
  for (const n of left) expect([...referenced, ...orphans].map((f) => path.basename(f))).toContain(n)
  for (const f of referenced) expect(fs.existsSync(f)).toBe(true)
  expect(orphans.filter((f) => !fs.existsSync(f))).toHaveLength(5)
  expect(fs.readFileSync(transcript, 'utf8')).toBe(text)

  const again = await collectInboundMedia({ stateDir: sd, graceMs: 0 })
  expect(again.removed).toHaveLength(15)
  expect(fs.readdirSync(inbound).sort()).toEqual(referenced.map((f) => path.basename(f)).sort())
})
