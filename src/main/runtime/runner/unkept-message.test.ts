// A message whose run ended before pi sent it, and whose transcript write failed too (unsent-turn.ts's keep, or
// the run's own write of the user turn refused with a storage error), stays open in the accepted-message
// journal: neither its lifecycle end nor a later run of the session settles it, and the next start's recovery
// writes it into the transcript — once.
import fs from 'node:fs'
import { afterAll, beforeAll, expect, it, vi } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { tempDir } from '../../../../test/fixtures/temp-dir'
import { startTestRuntime, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { until } from '../../../../test/fixtures/until'
import { Transcript } from '../sessions'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(async () => {
  await server?.close()
})

const userTexts = async (t: TestRuntime, sessionKey: string) =>
  (await t.call('chat.history', { sessionKey })).messages
    .filter((m) => (m as { role?: string }).role === 'user')
    .map((m) => ((m as { content: Array<{ text?: string }> }).content ?? []).map((c) => c.text ?? '').join(''))

async function runOk(t: TestRuntime, sessionKey: string, message: string, id: string) {
  await t.call('agent', { sessionKey, message, idempotencyKey: id })
  expect((await t.call('agent.wait', { runId: id, timeoutMs: 10_000 })).status).toBe('ok')
}

function transcriptFile(t: TestRuntime, sessionKey: string): string {
  const store = t.runtime.core.store('main')
  return store.transcriptPath(store.get(sessionKey)!.sessionId)
}

it('a failed keep leaves the message for the next start, past a later run of the session; recovery writes it once', async () => {
  const stateDir = tempDir('ld-unkept-')
  const key = 'agent:main:unkept'
  let t = await startTestRuntime(server, { stateDir })
  try {
    await runOk(t, key, 'first', 'u1')
    // a directory where the transcript is expected: the keep's read fails (root ignores chmod)
    const file = transcriptFile(t, key)
    fs.renameSync(file, `${file}.aside`)
    fs.mkdirSync(file)
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    try {
      // no API key for openai: the run fails before the model call, so the runner must keep the message itself
      await t.call('agent', { sessionKey: key, message: 'my carefully written question', idempotencyKey: 'u2', model: 'openai/gpt-4o' })
      expect((await t.call('agent.wait', { runId: 'u2', timeoutMs: 5000 })).status).toBe('error')
      expect(warn.mock.calls.some((c) => String(c[0]).includes('could not keep the message of run u2'))).toBe(true)
    } finally {
      warn.mockRestore()
    }
    fs.rmdirSync(file)
    fs.renameSync(`${file}.aside`, file)
    expect([...t.runtime.core.accepted('main').pending()].map((r) => r.runId)).toEqual(['u2'])
    // the session runs again and goes idle: the record stays open
    await runOk(t, key, 'later', 'u3')
    expect([...t.runtime.core.accepted('main').pending()].map((r) => r.runId)).toEqual(['u2'])
    expect(await userTexts(t, key)).toEqual(['first', 'later'])
    await t.close()

    t = await startTestRuntime(server, { stateDir })
    expect(await userTexts(t, key)).toEqual(['first', 'later', 'my carefully written question'])
    await t.close()
    // a second restart has nothing left to recover
    t = await startTestRuntime(server, { stateDir })
    expect(await userTexts(t, key)).toEqual(['first', 'later', 'my carefully written question'])
  } finally {
    await t.close()
  }
})

it('a message sent again and answered before the restart is not written a second time', async () => {
  const stateDir = tempDir('ld-unkept-')
  const key = 'agent:main:unkept-retry'
  let t = await startTestRuntime(server, { stateDir })
  try {
    await runOk(t, key, 'first', 'r1')
    const file = transcriptFile(t, key)
    fs.renameSync(file, `${file}.aside`)
    fs.mkdirSync(file)
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    try {
      await t.call('agent', { sessionKey: key, message: 'say it again', idempotencyKey: 'r2', model: 'openai/gpt-4o' })
      await t.call('agent.wait', { runId: 'r2', timeoutMs: 5000 })
    } finally {
      warn.mockRestore()
    }
    fs.rmdirSync(file)
    fs.renameSync(`${file}.aside`, file)
    // the window's Retry: the same words under a new key, answered
    await runOk(t, key, 'say it again', 'r3')
    await t.close()

    t = await startTestRuntime(server, { stateDir })
    expect(await userTexts(t, key)).toEqual(['first', 'say it again'])
  } finally {
    await t.close()
  }
})

it("the run's own write of the message refused (disk full) leaves it for the next start", async () => {
  const stateDir = tempDir('ld-unkept-')
  const key = 'agent:main:unkept-enospc'
  let t = await startTestRuntime(server, { stateDir })
  try {
    await runOk(t, key, 'first', 'd1')
    const append = Transcript.prototype.append
    const spy = vi.spyOn(Transcript.prototype, 'append').mockImplementation(function (this: Transcript, entry) {
      if (entry.type === 'message' && entry.message.role === 'user') {
        return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))
      }
      return append.call(this, entry)
    })
    try {
      await t.call('agent', { sessionKey: key, message: 'written on a full disk', idempotencyKey: 'd2' })
      const w = await t.call('agent.wait', { runId: 'd2', timeoutMs: 10_000 })
      expect(w.status).toBe('error')
      expect(String(w.error)).toMatch(/Storage error \(ENOSPC\)/)
    } finally {
      spy.mockRestore()
    }
    expect(await userTexts(t, key)).toEqual(['first'])
    await t.close()

    t = await startTestRuntime(server, { stateDir })
    expect(await userTexts(t, key)).toEqual(['first', 'written on a full disk'])
  } finally {
    await t.close()
  }
})

it("a collect batch's failed write keeps every folded message open: the next start writes each once", async () => {
  const stateDir = tempDir('ld-unkept-')
  const key = 'agent:main:unkept-collect'
  let t = await startTestRuntime(server, { stateDir })
  try {
    server.script([{ text: 'a b c d e f', chunks: 6, delayMs: 150 }, { text: 'batch answer' }])
    await t.call('chat.send', { sessionKey: key, message: 'first', idempotencyKey: 'c1' })
    await until(() => server.inFlight() === 1, 5000)
    // the first run's user turn is written: from here on every user turn fails on a full disk
    const append = Transcript.prototype.append
    const spy = vi.spyOn(Transcript.prototype, 'append').mockImplementation(function (this: Transcript, entry) {
      if (entry.type === 'message' && entry.message.role === 'user') {
        return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))
      }
      return append.call(this, entry)
    })
    try {
      for (const [id, text] of [['c2', 'collected one'], ['c3', 'collected two'], ['c4', 'collected three']]) {
        expect(await t.call('chat.send', { sessionKey: key, message: text, idempotencyKey: id, queueMode: 'collect' })).toMatchObject({ status: 'queued' })
      }
      expect((await t.call('agent.wait', { runId: 'c1', timeoutMs: 10_000 })).status).toBe('ok')
      // one batch run carries the three; its write of the batch's turn fails
      for (const id of ['c2', 'c3', 'c4']) expect((await t.call('agent.wait', { runId: id, timeoutMs: 10_000 })).status).toBe('error')
      await until(() => [...t.runtime.core.tracked.keys()].length === 0, 5000)
    } finally {
      spy.mockRestore()
    }
    expect([...t.runtime.core.accepted('main').pending()].map((r) => r.runId).sort()).toEqual(['c2', 'c3', 'c4'])
    expect(await userTexts(t, key)).toEqual(['first'])
    await t.close()

    t = await startTestRuntime(server, { stateDir })
    expect(await userTexts(t, key)).toEqual(['first', 'collected one', 'collected two', 'collected three'])
    await t.close()
    t = await startTestRuntime(server, { stateDir })
    expect(await userTexts(t, key)).toEqual(['first', 'collected one', 'collected two', 'collected three'])
  } finally {
    await t.close()
  }
})
