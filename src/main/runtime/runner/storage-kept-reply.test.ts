// A reply the disk refused part-way (ENOSPC after some bytes of its transcript line): the run ends on the
// storage error, the transcript is cut back to its last whole line, and the message's journal record stays
// open although the message itself was written — so the next start closes the run with the error and the
// reply as far as it streamed (from the Inspector's event log), and chat.history shows both.
import fs from 'node:fs'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import { startTestRuntime, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { Transcript } from '../sessions'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(async () => {
  await server?.close()
})

const REPLY = Array.from({ length: 40 }, (_, i) => `Paragraph ${i}: ${'words '.repeat(40)}`).join('\n\n')

/** Writes carrying the reply get `room` bytes onto the disk, then ENOSPC (the rest of the state dir is fine). */
function diskFullForReply(room: number) {
  const real = fs.writeSync
  return vi.spyOn(fs, 'writeSync').mockImplementation(((fd: number, buf: unknown, off?: number, len?: number, pos?: number) => {
    if (!Buffer.isBuffer(buf) || !buf.includes('Paragraph 39')) return (real as (...a: unknown[]) => number)(fd, buf, off, len, pos)
    if (room <= 0) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    const n = real(fd, buf, off!, Math.min(len!, room))
    room -= n
    return n
  }) as typeof fs.writeSync)
}

type Row = { role?: string; content?: Array<{ type?: string; text?: string }>; errorMessage?: string; stopReason?: string; interrupted?: boolean }
const rows = async (t: TestRuntime, sessionKey: string) => (await t.call('chat.history', { sessionKey })).messages as Row[]
const textOf = (r: Row) => (r.content ?? []).map((c) => c.text ?? '').join('')

it('a reply refused part-way by a full disk comes back after the restart with its storage error', async () => {
  const stateDir = tempDir('ld-diskfull-')
  const key = 'agent:main:diskfull'
  let t = await startTestRuntime(server, { stateDir })
  try {
    server.script([{ text: 'first answer' }])
    await t.call('agent', { sessionKey: key, message: 'first', idempotencyKey: 'f1' })
    expect((await t.call('agent.wait', { runId: 'f1', timeoutMs: 10_000 })).status).toBe('ok')

    server.script([{ text: REPLY, chunks: 20 }])
    const spy = diskFullForReply(3656)
    try {
      await t.call('agent', { sessionKey: key, message: 'write me a long one', idempotencyKey: 'f2' })
      const w = await t.call('agent.wait', { runId: 'f2', timeoutMs: 10_000 })
      expect(w.status).toBe('error')
      expect(String(w.error)).toMatch(/Storage error \(ENOSPC\)/)
    } finally {
      spy.mockRestore()
    }
    // nothing torn left behind: every line reads
    const store = t.runtime.core.store('main')
    const read = await new Transcript(store.transcriptPath(store.get(key)!.sessionId)).readAll()
    expect(read.skipped).toBe(0)
    expect(read.torn).toBe(false)
    // the message is in the transcript, its record still open for the next start (naming the error)
    expect((await rows(t, key)).map(textOf)).toEqual(['first', 'first answer', 'write me a long one'])
    const pending = [...t.runtime.core.accepted('main').pending()]
    expect(pending.map((r) => r.runId)).toEqual(['f2'])
    expect(pending[0].error).toMatch(/Storage error \(ENOSPC\)/)
    await t.close()

    t = await startTestRuntime(server, { stateDir })
    const after = await rows(t, key)
    expect(after.map((r) => r.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
    const closing = after[3]
    expect(textOf(closing)).toBe(REPLY)
    expect(closing).toMatchObject({ stopReason: 'error', errorMessage: expect.stringMatching(/Storage error \(ENOSPC\)/) })
    expect(closing.interrupted).toBeUndefined()
    expect(t.runtime.core.store('main').get(key)).toMatchObject({ status: 'failed', lastError: expect.stringMatching(/Storage error/) })
    await t.close()
    // written once: a second start has nothing left to recover
    t = await startTestRuntime(server, { stateDir })
    expect((await rows(t, key)).length).toBe(4)
  } finally {
    await t.close()
  }
})

it("the session's next run, once the disk has room, closes the refused reply first: in its place, before its own turn", async () => {
  const stateDir = tempDir('ld-diskfull-')
  const key = 'agent:main:diskfull-next'
  let t = await startTestRuntime(server, { stateDir })
  try {
    server.script([{ text: REPLY, chunks: 20 }])
    const spy = diskFullForReply(3656)
    try {
      await t.call('agent', { sessionKey: key, message: 'write me a long one', idempotencyKey: 'n1' })
      expect((await t.call('agent.wait', { runId: 'n1', timeoutMs: 10_000 })).status).toBe('error')
    } finally {
      spy.mockRestore()
    }
    // space is back: the user carries on in the same session
    server.script([{ text: 'short answer' }])
    await t.call('agent', { sessionKey: key, message: 'and now?', idempotencyKey: 'n2' })
    expect((await t.call('agent.wait', { runId: 'n2', timeoutMs: 10_000 })).status).toBe('ok')
    const live = await rows(t, key)
    expect(live.map((r) => [r.role, textOf(r) === REPLY ? 'REPLY' : textOf(r)])).toEqual([
      ['user', 'write me a long one'],
      ['assistant', 'REPLY'],
      ['user', 'and now?'],
      ['assistant', 'short answer'],
    ])
    expect(live[1]).toMatchObject({ stopReason: 'error', errorMessage: expect.stringMatching(/Storage error \(ENOSPC\)/) })
    // settled: the next start writes nothing more
    expect([...t.runtime.core.accepted('main').pending()]).toEqual([])
    await t.close()
    t = await startTestRuntime(server, { stateDir })
    expect((await rows(t, key)).length).toBe(4)
  } finally {
    await t.close()
  }
})
