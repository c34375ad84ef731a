// A lost sessions.json (NUL-filled by a power loss, emptied, deleted) no longer hides every conversation: at
// the next start each transcript whose header names a session key without a row gets its row back.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../../test/fixtures/test-runtime'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
  server.script(() => ({ text: 'noted' }))
})
afterAll(() => server.close())

async function run(t: TestRuntime, sessionKey: string, message: string, runId: string) {
  await t.call('agent', { message, sessionKey, idempotencyKey: runId })
  expect((await t.call('agent.wait', { runId, timeoutMs: 10_000 })).status).toBe('ok')
}

const userTexts = async (t: TestRuntime, sessionKey: string) =>
  (await t.call('chat.history', { sessionKey, limit: 100 })).messages
    .filter((m) => m.role === 'user')
    .map((m) => JSON.stringify(m.content).match(/"text":"([^"]*)"/)?.[1])

/** Two sessions with one exchange each, the runtime stopped; returns the state dir. */
async function twoSessions(): Promise<{ stateDir: string; ids: Record<string, string> }> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-orphans-'))
  fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server)))
  const t = await startTestRuntime(server, { stateDir })
  await run(t, 'agent:main:main', 'first in main', 'r1')
  await run(t, 'agent:main:work', 'first in work', 'r2')
  const ids = Object.fromEntries((await t.call('sessions.list', {})).sessions.map((s) => [s.key, s.sessionId]))
  await t.close()
  return { stateDir, ids }
}

/** a user message line: what makes a transcript worth listing */
const msg = JSON.stringify({ type: 'message', id: 'u1', timestamp: new Date(0).toISOString(), message: { role: 'user', content: [{ type: 'text', text: 'hi' }], timestamp: 0 } }) + '\n'

const storeFile = (stateDir: string) => path.join(stateDir, 'agents/main/sessions/sessions.json')

describe('transcripts sessions.json no longer lists', () => {
  for (const [name, lose] of [
    ['NUL-filled (power loss)', (f: string) => fs.writeFileSync(f, Buffer.alloc(fs.statSync(f).size))],
    ['emptied', (f: string) => fs.writeFileSync(f, '')],
    ['deleted', (f: string) => fs.rmSync(f)],
  ] as const) {
    it(`sessions.json ${name}: every session is listed again with its history, and the next message continues it`, async () => {
      const { stateDir, ids } = await twoSessions()
      lose(storeFile(stateDir))
      const t = await startTestRuntime(server, { stateDir })
      try {
        const rows = (await t.call('sessions.list', {})).sessions
        expect(Object.fromEntries(rows.map((s) => [s.key, s.sessionId]))).toEqual(ids)
        expect(await userTexts(t, 'agent:main:work')).toEqual(['first in work'])
        await run(t, 'agent:main:main', 'second in main', 'r3')
        expect(await userTexts(t, 'agent:main:main')).toEqual(['first in main', 'second in main'])
        // still the same transcript: no second live one for main
        expect((await t.call('sessions.list', {})).sessions.find((s) => s.key === 'agent:main:main')?.sessionId).toBe(ids['agent:main:main'])
      } finally {
        await t.close()
        fs.rmSync(stateDir, { recursive: true, force: true })
      }
    })
  }

  it('a store that still lists sessions is trusted: a session whose deletion stopped before its transcript moved stays deleted', async () => {
    const { stateDir, ids } = await twoSessions()
    const store = JSON.parse(fs.readFileSync(storeFile(stateDir), 'utf8'))
    delete store['agent:main:work'] // sessions.delete removes the row first, then archives the transcript
    fs.writeFileSync(storeFile(stateDir), JSON.stringify(store))
    const t = await startTestRuntime(server, { stateDir })
    try {
      expect((await t.call('sessions.list', {})).sessions.map((s) => [s.key, s.sessionId])).toEqual([['agent:main:main', ids['agent:main:main']]])
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  })

  it('a store that lists no session because the last one was deleted is trusted too: that deletion, stopped before its transcript moved, stays done', async () => {
    const { stateDir } = await twoSessions()
    // sessions.delete of the last row writes a valid, empty store, then archives the transcript: stopped in between
    fs.writeFileSync(storeFile(stateDir), '{}\n')
    const t = await startTestRuntime(server, { stateDir })
    try {
      expect((await t.call('sessions.list', {})).sessions.filter((s) => s.key === 'agent:main:work')).toEqual([])
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  })

  it('a transcript without a readable header, with a header only, of another agent or another id is left alone', async () => {
    const { stateDir, ids } = await twoSessions()
    const dir = path.dirname(storeFile(stateDir))
    fs.rmSync(storeFile(stateDir))
    fs.writeFileSync(path.join(dir, 'no-header.jsonl'), Buffer.alloc(200))
    // a header and nothing else (a fork whose copy the disk refused)
    fs.writeFileSync(path.join(dir, 'empty.jsonl'), JSON.stringify({ type: 'session', version: 1, id: 'empty', timestamp: new Date().toISOString(), cwd: '/', sessionKey: 'agent:main:empty' }) + '\n')
    fs.writeFileSync(path.join(dir, 'ops.jsonl'), JSON.stringify({ type: 'session', version: 1, id: 'ops', timestamp: new Date().toISOString(), cwd: '/', sessionKey: 'agent:ops:main' }) + '\n' + msg)
    fs.writeFileSync(path.join(dir, 'other-id.jsonl'), JSON.stringify({ type: 'session', version: 1, id: 'not-this-file', timestamp: new Date().toISOString(), cwd: '/', sessionKey: 'agent:main:x' }) + '\n' + msg)
    const t = await startTestRuntime(server, { stateDir })
    try {
      const rows = (await t.call('sessions.list', {})).sessions
      expect(Object.fromEntries(rows.map((s) => [s.key, s.sessionId]))).toEqual(ids)
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  })

  it('two transcripts of one key without a row: the newer one is the session', async () => {
    const { stateDir, ids } = await twoSessions()
    const dir = path.dirname(storeFile(stateDir))
    const old = path.join(dir, 'older-work.jsonl')
    fs.writeFileSync(old, JSON.stringify({ type: 'session', version: 1, id: 'older-work', timestamp: new Date(0).toISOString(), cwd: '/', sessionKey: 'agent:main:work' }) + '\n' + msg)
    fs.utimesSync(old, new Date(1000), new Date(1000))
    fs.rmSync(storeFile(stateDir))
    const t = await startTestRuntime(server, { stateDir })
    try {
      const rows = (await t.call('sessions.list', {})).sessions
      expect(rows.find((s) => s.key === 'agent:main:work')?.sessionId).toBe(ids['agent:main:work'])
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  })
})
