// Inbound media over a real runtime: files of deleted transcripts go, files of archived transcripts (reset,
// delete without deleteTranscript), queued messages and other sessions stay; the start-up pass runs by itself.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { until } from '../../../../test/fixtures/until'
import { inboundMediaDir } from '../attachments'
import { newInboundName } from './inbound-names'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
})
afterAll(() => server.close())

let t: TestRuntime | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
})

const file = (name: string, text: string) => ({ fileName: name, mimeType: 'text/plain', content: Buffer.from(text).toString('base64') })
const inbound = () => fs.readdirSync(inboundMediaDir(t!.stateDir)).sort()

/** Sends a message with one text attachment, waits for its run, returns the saved path. */
async function sendWithFile(sessionKey: string, id: string, message = 'look'): Promise<string> {
  const before = new Set(fs.existsSync(inboundMediaDir(t!.stateDir)) ? inbound() : [])
  await t!.call('chat.send', { sessionKey, message, idempotencyKey: id, attachments: [file(`${id}.txt`, id)] })
  await t!.call('agent.wait', { runId: id, timeoutMs: 10_000 })
  const added = inbound().filter((n) => !before.has(n))
  expect(added).toHaveLength(1)
  return path.join(inboundMediaDir(t!.stateDir), added[0])
}

describe('inbound media and session deletion', () => {
  it('sessions.delete deleteTranscript removes the files only that transcript named; reset and archive keep theirs', async () => {
    // grace 0 so a sweep here may remove anything unreferenced; no automatic pass during the test
    t = await startTestRuntime(server, { runtime: { mediaGc: { graceMs: 0, startDelayMs: 3_600_000 } } })
    const media = t.runtime.core.media!
    const onlyA = await sendWithFile('agent:main:a', 'a1')
    const sharedPath = await sendWithFile('agent:main:a', 'a2')
    // session b's message names a2's file too: it must outlive session a's transcript
    const onlyB = await sendWithFile('agent:main:b', 'b1', `compare with ${sharedPath}`)
    const onlyC = await sendWithFile('agent:main:c', 'c1')

    const del = await t.call('sessions.delete', { key: 'agent:main:a', deleteTranscript: true })
    expect(del).toMatchObject({ deleted: true, archived: [] })
    await media.idle()
    expect(fs.existsSync(onlyA)).toBe(false)
    expect(fs.existsSync(sharedPath)).toBe(true)

    // reset archives b's transcript; delete without deleteTranscript archives c's: both keep their files
    await t.call('sessions.reset', { key: 'agent:main:b' })
    const delC = await t.call('sessions.delete', { key: 'agent:main:c' })
    expect(delC.archived).toHaveLength(1)
    const orphan = path.join(inboundMediaDir(t.stateDir), newInboundName('bin'))
    fs.writeFileSync(orphan, 'nobody names me')
    // grace 0 still spares a file changed after the sweep's clock reading: its timestamps have sub-ms parts
    // (a sweep started in the same millisecond skipped it — seen once under load)
    const { ctimeMs } = fs.statSync(orphan)
    while (Date.now() <= ctimeMs + 1) await new Promise((r) => setTimeout(r, 2))
    const r = await media.sweep()
    expect(r?.removed).toEqual([orphan])
    for (const f of [sharedPath, onlyB, onlyC]) expect(fs.existsSync(f)).toBe(true)
  })

  it('a message waiting in the queue keeps its file through a sweep; the file is in the transcript after its run', async () => {
    t = await startTestRuntime(server, { runtime: { mediaGc: { graceMs: 0, startDelayMs: 3_600_000 } } })
    // the first run is slow, so the second message waits behind it
    server.push({ text: 'slow', headerDelayMs: 800 })
    await t.call('chat.send', { sessionKey: 'agent:main:q', message: 'first', idempotencyKey: 'q1' })
    await server.waitForRequests(server.requests.length + 1)
    const queued = await t.call('chat.send', {
      sessionKey: 'agent:main:q',
      message: 'second',
      idempotencyKey: 'q2',
      queueMode: 'followup',
      attachments: [file('later.txt', 'later')],
    })
    expect(queued.status).toBe('queued')
    const [name] = inbound()
    const r = await t.runtime.core.media!.sweep()
    expect(r?.removed).toEqual([])
    expect(fs.existsSync(path.join(inboundMediaDir(t.stateDir), name))).toBe(true)
    await t.call('agent.wait', { runId: 'q2', timeoutMs: 10_000 })
    const transcript = fs.readFileSync(t.runtime.core.store('main').transcriptPath(t.runtime.core.store('main').get('agent:main:q')!.sessionId), 'utf8')
    expect(transcript).toContain(name)
  })

  it('runs a pass by itself after start-up (and not before the grace age)', async () => {
    t = await startTestRuntime(server, { runtime: { mediaGc: { graceMs: 60_000, startDelayMs: 50, intervalMs: 3_600_000 } } })
    const dir = inboundMediaDir(t.stateDir)
    fs.mkdirSync(dir, { recursive: true })
    const old = path.join(dir, newInboundName('txt'))
    const young = path.join(dir, newInboundName('txt'))
    fs.writeFileSync(old, 'old')
    fs.writeFileSync(young, 'young')
    // ctime cannot be set back: the old file's age is faked by a pass that sees time moved on instead
    const real = Date.now
    const skew = 10 * 60_000
    Date.now = () => real() + skew
    try {
      fs.utimesSync(young, (real() + skew) / 1000, (real() + skew) / 1000)
      await until(() => !fs.existsSync(old), 5_000)
    } finally {
      Date.now = real
    }
    expect(fs.existsSync(young)).toBe(true)
  })

  it('mediaGc: false switches it off (deleteTranscript still removes the transcript)', async () => {
    t = await startTestRuntime(server, { runtime: { mediaGc: false } })
    expect(t.runtime.core.media).toBeUndefined()
    const f = await sendWithFile('agent:main:x', 'x1')
    const transcript = t.runtime.core.store('main').transcriptPath(t.runtime.core.store('main').get('agent:main:x')!.sessionId)
    await t.call('sessions.delete', { key: 'agent:main:x', deleteTranscript: true })
    expect(fs.existsSync(transcript)).toBe(false)
    expect(fs.existsSync(f)).toBe(true)
  })
})
