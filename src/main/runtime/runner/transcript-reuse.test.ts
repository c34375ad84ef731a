// Runs reuse the parsed transcript of earlier runs (sessions/transcript-cache). Nothing on the run path —
// history rebuild, pi, the providers' request builders, hooks — may change those shared entries: after runs
// with tool calls on both provider APIs, the cached parse still equals a fresh parse of the file, and the
// model saw the whole conversation in every request.
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { useTestRuntime } from '../../../../test/fixtures/use-test-runtime'
import { parseTranscript, Transcript } from '../sessions'

const env = useTestRuntime()

async function run(sessionKey: string, message: string, model?: string) {
  const { runId } = await env.t.call('agent', { message, sessionKey, idempotencyKey: `${sessionKey}-${message}`, ...(model ? { model } : {}) })
  const final = await env.t.runtime.agentFinal(runId)
  expect(final.status).toBe('ok')
}

describe('transcript reuse across runs', () => {
  it('cached entries stay equal to the file after tool runs on OpenAI and Anthropic APIs; each request carries the full history', async () => {
    fs.mkdirSync(env.t.workspace, { recursive: true })
    fs.writeFileSync(`${env.t.workspace}/notes.txt`, 'remember the milk')
    const key = 'agent:main:reuse'
    const turns = [
      { msg: 'question alpha', model: undefined, script: [{ toolCalls: [{ name: 'read', args: { path: 'notes.txt' } }] }, { text: 'It says milk.' }] },
      { msg: 'question bravo', model: 'mockant/c1', script: [{ toolCalls: [{ name: 'ls', args: {} }] }, { text: 'Listed.' }] },
      { msg: 'question charlie', model: 'mock/m1', script: [{ text: 'Third answer.' }] },
      { msg: 'question delta', model: 'mockant/c1', script: [{ text: 'Fourth answer.' }] },
    ]
    let users = 0
    for (const turn of turns) {
      env.server.script(turn.script)
      const before = env.server.requests.length
      await run(key, turn.msg, turn.model)
      users++
      const entry = env.t.runtime.core.store('main').get(key)!
      const file = env.t.runtime.core.store('main').transcriptPath(entry.sessionId)
      const cached = await new Transcript(file).readAll()
      expect(cached).toEqual(parseTranscript(fs.readFileSync(file, 'utf8')))
      // the first request of the run carried every earlier user message plus the new one
      const body = JSON.stringify(env.server.requests[before].body)
      for (const m of turns.slice(0, users)) expect(body).toContain(m.msg)
    }
    const entry = env.t.runtime.core.store('main').get(key)!
    const { entries } = await new Transcript(env.t.runtime.core.store('main').transcriptPath(entry.sessionId)).readAll()
    expect(entries.filter((e) => e.type === 'message').map((e) => (e as { message: { role: string } }).message.role)).toEqual([
      'user', 'assistant', 'toolResult', 'assistant',
      'user', 'assistant', 'toolResult', 'assistant',
      'user', 'assistant',
      'user', 'assistant',
    ])
  })
})
