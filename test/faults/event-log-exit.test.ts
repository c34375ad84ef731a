// The Inspector's event log on a full disk, at the gateway's shutdown: lines the disk refused are held (and
// retried); a SIGTERM drain gives them a last synchronous try, and when the disk still refuses them the gateway
// says in one line how many lines and bytes of which session were lost — never their content. The events dir is
// a small tmpfs, filled; without mount privileges the case is skipped with the reason printed (see disk.test.ts).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../fixtures/model-server'
import { openClient, type TestClient } from './support/client'
import { startGatewayChild, type GatewayChild } from './support/gateway-process'
import { LogSink } from './support/logs'
import { newApiKey, newToken, suiteConfig, tempStateDir, writeConfig } from './support/setup'
import { readSessions } from './support/transcripts'

const token = newToken()
const logs = new LogSink()
let server: ModelServer
let stateDir: string
let events: string
let gw: GatewayChild | undefined
let c: TestClient | undefined
let mounted = false
let skipReason = ''
const SECRET = 'REPLYTEXT'

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: `${SECRET} `.repeat(400), chunks: 20 } })
  stateDir = tempStateDir('evexit')
  writeConfig(stateDir, suiteConfig(server, { apiKey: newApiKey() }))
  events = path.join(stateDir, 'agents', 'main', 'events')
  fs.mkdirSync(events, { recursive: true })
  if (process.platform !== 'linux') skipReason = 'not Linux'
  else if (process.getuid?.() !== 0) skipReason = 'not root (mount needs privileges)'
  else {
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k,mode=0700', 'tmpfs', events], { stdio: 'pipe' })
      mounted = true
    } catch (err) {
      skipReason = `mount failed: ${(err as Error).message.split('\n')[0]}`
    }
  }
  if (!mounted) return
  gw = await startGatewayChild({ stateDir, token, logs, label: 'evexit' })
  c = await openClient(gw.url, token)
})
afterAll(async () => {
  await c?.close()
  await gw?.stop()
  if (mounted) execFileSync('umount', ['-l', events])
  await server?.close()
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true })
})

it('a SIGTERM with event-log lines the full disk still refuses: one line names the session and the count, no content', async (ctx) => {
  if (!mounted) {
    console.log(`FAULTS event-log exit: skipped (${skipReason})`)
    return ctx.skip()
  }
  // the events tmpfs full to the last byte: a new session's file takes nothing
  const filler = path.join(events, 'filler')
  try {
    fs.writeFileSync(filler, Buffer.alloc(1024 * 1024, 1))
  } catch {
    // ENOSPC: full, as meant
  }
  const call = c!.agent({ message: 'a long reply please', idempotencyKey: 'evexit-1', sessionKey: 'agent:main:evexit', timeout: 60 })
  await call.accepted
  expect((await call.final).ok).toBe(true) // runs are not affected
  const sessionId = readSessions(stateDir)['agent:main:evexit']?.sessionId as string
  expect(sessionId).toBeTruthy()
  const exit = await gw!.stop()
  expect(exit.code).toBe(0)
  const out = logs.of(`evexit:${gw!.pid}`)
  const lost = out.split('\n').filter((l) => l.includes("the Inspector's event log lost"))
  console.log(`FAULTS event-log exit: ${lost[0] ?? 'no loss line'}`)
  expect(lost).toHaveLength(1)
  expect(lost[0]).toMatch(new RegExp(`lost \\d+ lines \\(\\d+ bytes\\) at exit, the disk refusing them \\(ENOSPC\\) — session ${sessionId} \\(\\d+ lines, \\d+ bytes\\)$`))
  expect(out).not.toContain(SECRET)
  expect(fs.existsSync(path.join(events, `${sessionId}.jsonl`)) ? fs.readFileSync(path.join(events, `${sessionId}.jsonl`), 'utf8') : '').toBe('')
}, 120_000)
