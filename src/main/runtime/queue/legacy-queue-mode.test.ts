// A session stored by OpenClaw April (or an older Loopdesk) may name a retired queue mode: `steer-backlog`
// (April's steer that also kept a follow-up) is read as `followup`, `queue` as `steer` — as OpenClaw 2026.9's
// `normalizePersistedQueueMode` does. sessions.patch takes those names and stores the mode they stand for.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime } from '../../../../test/fixtures/test-runtime'
import { sessionStorePath } from '../sessions/paths'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
})
afterAll(async () => {
  await server?.close()
})

it('a stored steer-backlog session queues a message sent while its run is active as a follow-up, and lists as followup', async () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-legacy-queue-'))
  const key = 'agent:main:legacy-queue'
  try {
    let t = await startTestRuntime(server, { stateDir })
    await t.call('sessions.create', { key })
    await t.close()
    // the entry as an April-era store holds it
    const file = sessionStorePath(stateDir, 'main')
    const store = JSON.parse(fs.readFileSync(file, 'utf8'))
    store[key].queueMode = 'steer-backlog'
    fs.writeFileSync(file, JSON.stringify(store, null, 2))

    t = await startTestRuntime(server, { stateDir })
    try {
      const row = (await t.call('sessions.list', {})).sessions.find((r) => r.key === key)
      expect(row?.queueMode).toBe('followup')
      server.push({ text: 'a slow answer', chunks: 8, delayMs: 60 }, { text: 'the follow-up answer' })
      await t.call('chat.send', { sessionKey: key, message: 'first', idempotencyKey: 'lq1' })
      // no queueMode: the session's own decides (the default would steer into the running turn)
      const second = await t.call('chat.send', { sessionKey: key, message: 'second', idempotencyKey: 'lq2' })
      expect(second).toMatchObject({ runId: 'lq2', status: 'queued' })
      expect(t.runtime.core.queueModes?.itemFor?.(key, 'lq2')).toMatchObject({ status: 'queued', mode: 'followup' })
      expect((await t.call('agent.wait', { runId: 'lq2', timeoutMs: 10_000 })).status).toBe('ok')
    } finally {
      await t.close()
    }
  } finally {
    fs.rmSync(stateDir, { recursive: true, force: true })
  }
})

it('sessions.patch takes OpenClaw\'s aliases and retired names and stores the mode; an unknown name is refused', async () => {
  const t = await startTestRuntime(server)
  try {
    const key = 'agent:main:patch-queue'
    await t.call('sessions.create', { key })
    const mode = async () => (await t.call('sessions.list', {})).sessions.find((r) => r.key === key)?.queueMode
    for (const [name, stored] of [['steer-backlog', 'followup'], ['steer+backlog', 'followup'], ['queue', 'steer'], ['coalesce', 'collect'], ['abort', 'interrupt']] as const) {
      await t.call('sessions.patch', { key, queueMode: name })
      expect(t.runtime.core.store('main').get(key)?.queueMode).toBe(stored)
      expect(await mode()).toBe(stored)
    }
    const bad = await t.raw('sessions.patch', { key, queueMode: 'backlog' })
    expect(bad.ok).toBe(false)
  } finally {
    await t.close()
  }
})
