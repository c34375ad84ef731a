// A provider renamed while messages chosen for it wait their turn: each recorded the session's model
// (`local/m2`) when it was accepted, and must still run on that endpoint under its new name — a chat queue's
// follow-up, an `agent` run waiting in its session lane, and the accepted-message journal's records (a paused
// message restored after a restart).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { AcceptedJournal, readDeadJournals } from './runner/accepted-journal'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
})
afterAll(() => server.close())

let t: TestRuntime
let stateDir: string
beforeEach(async () => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-rename-wait-'))
  const config = {
    models: { providers: { local: { baseUrl: server.openaiBaseUrl, api: 'openai-completions', models: [{ id: 'm1' }, { id: 'm2' }] } } },
    agents: { defaults: { model: { primary: 'local/m1' } } },
  }
  fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(config, null, 2))
  t = await startTestRuntime(server, { stateDir, runtime: { mediaGc: false } })
  t.runtime.core.credentials.set('local', 'sk-local')
})
afterEach(async () => {
  await t.close()
  fs.rmSync(stateDir, { recursive: true, force: true })
})

describe('a provider rename and the messages waiting their turn', () => {
  it('a queued follow-up and an agent run waiting in its lane run on the renamed provider, journal included', async () => {
    const key = 'agent:main:waiting'
    await t.call('sessions.create', { key, model: 'local/m2' })
    server.script([{ text: 'first reply, slowly', chunks: 6, delayMs: 150 }])
    const before = server.requests.length
    expect(await t.call('chat.send', { sessionKey: key, message: 'one', idempotencyKey: 'rw-1' })).toMatchObject({ status: 'started' })
    await server.waitForRequests(before + 1)
    expect(await t.call('chat.send', { sessionKey: key, message: 'two', idempotencyKey: 'rw-2', queueMode: 'followup' })).toMatchObject({ status: 'queued' })
    await t.call('agent', { sessionKey: key, message: 'three', idempotencyKey: 'rw-3' })
    // both recorded the session's choice under the old name
    const journal = t.runtime.core.accepted('main')
    expect([...journal.pending()].filter((r) => r.runId !== 'rw-1').map((r) => r.run?.sessionModel)).toEqual(['local/m2', 'local/m2'])

    const r = await t.call('loopdesk.config.renameProvider', { from: 'local', to: 'box' })
    expect(r.movedSessions).toBe(1)
    expect([...journal.pending()].filter((r) => r.runId !== 'rw-1').map((r) => r.run?.sessionModel)).toEqual(['box/m2', 'box/m2'])
    expect(fs.readFileSync(journal.file, 'utf8')).toContain('{"op":"rename","from":"local","to":"box"}')

    for (const runId of ['rw-1', 'rw-2', 'rw-3']) {
      const done = await t.call('agent.wait', { runId, timeoutMs: 15_000 })
      expect(done, runId).toMatchObject({ status: 'ok' })
    }
    // every one went to the same endpoint and model
    expect(server.requests.slice(before).map((q) => q.body.model)).toEqual(['m2', 'm2', 'm2'])
  })
})

describe('accepted-message journal: a provider rename', () => {
  it('moves the open records in memory and, read back after the process is gone, before its line only', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-rename-journal-'))
    try {
      const j = new AcceptedJournal(dir)
      j.accept({ runId: 'a', sessionKey: 'agent:main:x', text: 'one', at: 1, run: { sessionModel: 'local/m2', model: 'local/m1', thinking: 'low' } })
      j.accept({ runId: 'b', sessionKey: 'agent:main:x', text: 'two', at: 2, held: true, run: { sessionModel: 'other/x' } })
      j.accept({ runId: 'c', sessionKey: 'agent:main:y', text: 'three', at: 3, run: { sessionModel: null } })
      expect(j.renameProvider('local', 'box')).toEqual(['a'])
      expect(j.renameProvider('nobody', 'else')).toEqual([])
      // after the rename a new provider takes the old name: a message accepted now means that one
      j.accept({ runId: 'd', sessionKey: 'agent:main:x', text: 'four', at: 4, run: { sessionModel: 'local/m9' } })
      expect([...j.pending()].map((r) => r.run)).toEqual([
        { sessionModel: 'box/m2', model: 'box/m1', thinking: 'low' },
        { sessionModel: 'other/x' },
        { sessionModel: null },
        { sessionModel: 'local/m9' },
      ])
      j.close() // records open: the file stays, its owner no longer live
      const runs = Object.fromEntries(readDeadJournals(dir).records.map((r) => [r.runId, r.run]))
      expect(runs).toEqual({
        a: { sessionModel: 'box/m2', model: 'box/m1', thinking: 'low' },
        b: { sessionModel: 'other/x' },
        c: { sessionModel: null },
        d: { sessionModel: 'local/m9' },
      })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
