// Load: 100 concurrent WebSocket clients × 10 `agent` runs each over 50 sessions (two clients per session)
// against the headless gateway (child process). Zero lost runs (every ack is followed by an ok final);
// every agent.wait returns; runs of a session execute one at a time in acceptance order (lifecycle
// timestamps and transcript order); no event of one session is delivered as another's (every client
// checks every agent/chat event it sees against the run → session map, and each reply names its run).
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type CapturedRequest, type ModelServer, type Turn } from '../fixtures/model-server'
import { connectGateway, type GatewayConnectionClient } from '../../src/cli/gateway-client'
import { testIdentity } from './support/client'
import { startGatewayChild, type GatewayChild } from './support/gateway-process'
import { findSecrets, LogSink } from './support/logs'
import { lastUserText, newApiKey, newToken, suiteConfig, tempStateDir, writeConfig } from './support/setup'
import { parseJsonl, transcriptOf, userTexts } from './support/transcripts'

const CLIENTS = 100
const RUNS = 10
const SESSIONS = 50
const token = newToken()
const apiKey = newApiKey()
const logs = new LogSink()
let server: ModelServer
let stateDir: string
let gw: GatewayChild

function script(req: CapturedRequest): Turn {
  const marker = /RUN\[([\w-]+)\]/.exec(lastUserText(req))?.[1] ?? 'unknown'
  return { textChunks: ['reply to ', `RUN[${marker}]`], usage: { input: 5, output: 3 } }
}

beforeAll(async () => {
  server = await startModelServer({ captureBodies: false })
  server.script(script)
  stateDir = tempStateDir('load')
  writeConfig(stateDir, suiteConfig(server, { apiKey, maxConcurrent: 16 }))
  gw = await startGatewayChild({ stateDir, token, logs, label: 'load' })
})
afterAll(async () => {
  await gw?.stop()
  await server?.close()
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true })
})

interface RunRecord {
  runId: string
  sessionKey: string
  client: number
  order: number
  acceptedAt?: number
  startedAt?: number
  endedAt?: number
  finalOk?: boolean
  finalText?: string
  waitStatus?: string
  error?: string
}

describe('load', () => {
  it(`${CLIENTS} clients × ${RUNS} runs over ${SESSIONS} sessions: nothing lost, order kept, no cross-talk`, async () => {
    const started = Date.now()
    const runs = new Map<string, RunRecord>()
    for (let ci = 0; ci < CLIENTS; ci++) {
      for (let k = 0; k < RUNS; k++) {
        const runId = `load-${ci}-${k}`
        runs.set(runId, { runId, sessionKey: `agent:main:load-${ci % SESSIONS}`, client: ci, order: k })
      }
    }
    let crossTalk = 0
    const crossSamples: string[] = []
    let eventsSeen = 0

    // connect in batches: the gateway allows 32 pending handshakes per address
    const conns: GatewayConnectionClient[] = []
    for (let i = 0; i < CLIENTS; i += 16) {
      conns.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(16, CLIENTS - i) }, () =>
            connectGateway({ url: gw.url, token, identity: testIdentity(), clientId: 'test', clientMode: 'test', connectTimeoutMs: 60_000 }),
          ),
        )),
      )
    }

    const perClient = conns.map((conn, ci) => {
      const mine = new Map<string, RunRecord>()
      conn.onEvent((e) => {
        if (e.event !== 'agent' && e.event !== 'chat') return
        eventsSeen++
        const p = e.payload as { runId?: string; sessionKey?: string; stream?: string; data?: any; state?: string; message?: any }
        const rec = p.runId ? runs.get(p.runId) : undefined
        if (rec && p.sessionKey !== rec.sessionKey) {
          crossTalk++
          if (crossSamples.length < 5) crossSamples.push(`${e.event} of ${p.runId} carried ${p.sessionKey}, expected ${rec.sessionKey}`)
        }
        // a run's text never names another run
        const text = e.event === 'agent' && p.stream === 'assistant' ? String(p.data?.text ?? '') : e.event === 'chat' ? JSON.stringify(p.message ?? '') : ''
        const named = /RUN\[([\w-]+)\]/.exec(text)?.[1]
        if (rec && named && named !== rec.runId) {
          crossTalk++
          if (crossSamples.length < 5) crossSamples.push(`${e.event} of ${p.runId} carried the text of ${named}`)
        }
        const own = p.runId ? mine.get(p.runId) : undefined
        if (own && e.event === 'agent' && p.stream === 'lifecycle') {
          if (p.data.phase === 'start') own.startedAt = p.data.startedAt
          else own.endedAt = p.data.endedAt
        }
      })
      return (async () => {
        const finals: Array<Promise<void>> = []
        const waits: Array<Promise<void>> = []
        for (let k = 0; k < RUNS; k++) {
          const rec = runs.get(`load-${ci}-${k}`)!
          mine.set(rec.runId, rec)
          // all ten at once: they queue in the session lane behind each other (and the other client's)
          finals.push(
            conn
              .request(
                'agent',
                { message: `RUN[${rec.runId}] hello`, idempotencyKey: rec.runId, sessionKey: rec.sessionKey, timeout: 120 },
                {
                  expectFinal: true,
                  timeoutMs: 240_000,
                  onAccepted: (ack: any) => {
                    rec.acceptedAt = ack.acceptedAt
                    // agent.wait while the run is queued or running
                    waits.push(
                      conn.request('agent.wait', { runId: rec.runId, timeoutMs: 180_000 }, { timeoutMs: 200_000 }).then(
                        (w: any) => void (rec.waitStatus = w.status),
                        (err: Error) => void (rec.waitStatus = `failed: ${err.message}`),
                      ),
                    )
                  },
                },
              )
              .then(
                (f: any) => {
                  rec.finalOk = f.status === 'ok'
                  rec.finalText = (f.result?.payloads ?? []).map((x: { text?: string }) => x.text ?? '').join('')
                },
                (err: Error) => {
                  rec.finalOk = false
                  rec.error = err.message
                },
              ),
          )
        }
        await Promise.all(finals)
        await Promise.all(waits)
      })()
    })
    await Promise.all(perClient)
    const duration = (Date.now() - started) / 1000

    // ---- checks
    const all = [...runs.values()]
    const lost = all.filter((r) => !r.finalOk)
    const waitsNotOk = all.filter((r) => r.waitStatus !== 'ok')
    const wrongText = all.filter((r) => r.finalOk && r.finalText !== `reply to RUN[${r.runId}]`)
    const problems: string[] = []
    for (const r of lost.slice(0, 5)) problems.push(`lost ${r.runId}: ${r.error ?? 'final not ok'}`)
    for (const r of waitsNotOk.slice(0, 5)) problems.push(`agent.wait(${r.runId}) → ${r.waitStatus}`)
    for (const r of wrongText.slice(0, 5)) problems.push(`${r.runId} final text: ${r.finalText}`)
    problems.push(...crossSamples)

    // per session: one run at a time, in acceptance order
    let orderViolations = 0
    const bySession = new Map<string, RunRecord[]>()
    for (const r of all) bySession.set(r.sessionKey, [...(bySession.get(r.sessionKey) ?? []), r])
    for (const [key, list] of bySession) {
      const byStart = [...list].sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0))
      for (let i = 1; i < byStart.length; i++) {
        const prev = byStart[i - 1]
        const cur = byStart[i]
        if (prev.endedAt === undefined || cur.startedAt === undefined || cur.startedAt < prev.endedAt) {
          orderViolations++
          problems.push(`${key}: ${cur.runId} started at ${cur.startedAt} before ${prev.runId} ended at ${prev.endedAt}`)
        }
        // a client's runs were accepted in the order it sent them: they run in that order
        if (prev.client === cur.client && prev.order > cur.order) {
          orderViolations++
          problems.push(`${key}: ${cur.runId} ran after ${prev.runId} although accepted before it`)
        }
        if ((prev.acceptedAt ?? 0) > (cur.acceptedAt ?? 0)) {
          orderViolations++
          problems.push(`${key}: ${cur.runId} (accepted ${cur.acceptedAt}) ran after ${prev.runId} (accepted ${prev.acceptedAt})`)
        }
      }
      // the transcript holds the messages in the order the runs ran
      const file = transcriptOf(stateDir, key)!
      const texts = userTexts(parseJsonl(fs.readFileSync(file, 'utf8')).entries).map((t) => /RUN\[([\w-]+)\]/.exec(t)?.[1])
      const expected = byStart.map((r) => r.runId)
      if (JSON.stringify(texts) !== JSON.stringify(expected)) {
        orderViolations++
        problems.push(`${key}: transcript order ${texts.join(',')} ≠ run order ${expected.join(',')}`)
      }
    }
    await Promise.all(conns.map((c) => c.close()))

    console.log(
      `FAULTS load: clients=${CLIENTS} runsPerClient=${RUNS} sessions=${SESSIONS} runs=${all.length} lost=${lost.length} ` +
        `waitsNotOk=${waitsNotOk.length} orderViolations=${orderViolations} crossTalk=${crossTalk} eventsChecked=${eventsSeen} ` +
        `duration=${duration.toFixed(1)}s runsPerSec=${(all.length / duration).toFixed(0)}`,
    )
    expect(problems.slice(0, 20)).toEqual([])
    expect(lost).toHaveLength(0)
    expect(crossTalk).toBe(0)
    expect(findSecrets([token, apiKey], { logs, stateDirs: [stateDir] })).toEqual([])
  })
})
