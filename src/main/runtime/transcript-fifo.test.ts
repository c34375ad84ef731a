// A FIFO planted under a transcript's name. fs.promises.open of it waited for a writer that never came: the
// first sessions.list (its derived title) never answered, and each call parked one of libuv's 4 threads for good
// until every file operation of the gateway stalled. Now the session lists (no derived title), its history is
// refused naming the file, and the rest of the state dir stays usable.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { useTestRuntimePerTest } from '../../../test/fixtures/use-test-runtime'

const env = useTestRuntimePerTest()

describe.skipIf(process.platform === 'win32')('a FIFO under a transcript name', () => {
  it('sessions.list answers (again and again), chat.history is refused naming the file, other sessions read as usual', async () => {
    env.server.script([{ text: 'one' }, { text: 'two' }])
    for (const [key, id] of [['agent:main:fifo', 'f1'], ['agent:main:fine', 'f2']]) {
      await env.t.call('agent', { message: `hello ${key}`, sessionKey: key, idempotencyKey: id })
      await env.t.call('agent.wait', { runId: id, timeoutMs: 10_000 })
    }
    // from the file, not sessions.list: a list would cache the derived title before the FIFO is planted
    const dir = path.join(env.t.stateDir, 'agents', 'main', 'sessions')
    const row = { sessionId: JSON.parse(fs.readFileSync(path.join(dir, 'sessions.json'), 'utf8'))['agent:main:fifo'].sessionId as string }
    const file = path.join(dir, `${row.sessionId}.jsonl`)
    fs.rmSync(file)
    execFileSync('mkfifo', [file])
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      // more calls than the thread pool has threads: none may park one
      for (let i = 0; i < 6; i++) {
        const rows = (await env.t.call('sessions.list', { includeDerivedTitles: true })).sessions
        expect(rows.map((r) => r.key)).toContain('agent:main:fine')
      }
      await expect(env.t.call('chat.history', { sessionKey: 'agent:main:fifo' })).rejects.toMatchObject({
        message: expect.stringContaining(`transcript ${row.sessionId}.jsonl is not a regular file`),
      })
      const fine = await env.t.call('chat.history', { sessionKey: 'agent:main:fine' })
      expect(fine.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
      expect(fs.lstatSync(file).isFIFO()).toBe(true)
    } finally {
      warn.mockRestore()
    }
  })
})
