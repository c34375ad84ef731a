// Crash safety: a process running a run is killed with SIGKILL; a new runtime on the same state dir
// reads every earlier transcript line, marks the session interrupted, closes the dangling tool call and
// runs the next message normally.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig } from '../../../test/fixtures/test-runtime'
import { INTERRUPTED_PARTIAL, INTERRUPTED_RUN } from './runner/recovery'

const ROOT = path.resolve(__dirname, '../../..')
let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(() => server.close())

function startChild(
  stateDir: string,
  message: string,
  fixture = 'kill9-child.ts',
): { child: ChildProcess; waitFor(marker: string): Promise<void>; stdout(): string } {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'test/fixtures', fixture), stateDir, message], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (err += d))
  return {
    child,
    stdout: () => out,
    waitFor: (marker) =>
      new Promise((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`child never printed ${marker}; stdout=${out} stderr=${err}`)), 20_000)
        const check = () => {
          if (out.includes(marker)) {
            clearTimeout(deadline)
            resolve()
          } else if (child.exitCode !== null) {
            clearTimeout(deadline)
            reject(new Error(`child exited ${child.exitCode}; stdout=${out} stderr=${err}`))
          } else setTimeout(check, 20)
        }
        check()
      }),
  }
}

/** Resolves once the Inspector's event log (flushed every 250 ms) holds `text` for some session. */
async function eventLogHas(stateDir: string, text: string): Promise<void> {
  const dir = path.join(stateDir, 'agents/main/events')
  const deadline = Date.now() + 15_000
  for (;;) {
    const files = fs.existsSync(dir) ? fs.readdirSync(dir) : []
    if (files.some((f) => fs.readFileSync(path.join(dir, f), 'utf8').includes(text))) return
    if (Date.now() > deadline) throw new Error(`event log never held ${text}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

const killed = (child: ChildProcess) => new Promise<void>((r) => (child.exitCode !== null || child.signalCode ? r() : child.once('exit', () => r())))

describe('kill -9 mid-run', () => {
  it('killed while a tool runs: every earlier line readable, session interrupted, dangling call closed, next run works', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-kill9-'))
    fs.writeFileSync(
      path.join(stateDir, 'loopdesk.json'),
      JSON.stringify(testConfig(server, { tools: { exec: { allowlist: ['sleep *'] } } })),
    )
    // turn 1: a streamed preamble + an exec that outlives the process
    server.script([{ text: 'Starting the long job now.', chunks: 3, toolCalls: [{ id: 'call_long', name: 'exec', args: { command: 'sleep 3' } }] }])
    const { child, waitFor } = startChild(stateDir, 'run the long job')
    try {
      await waitFor('TOOL_STARTED')
      child.kill('SIGKILL')
      await killed(child)
    } finally {
      if (child.exitCode === null && !child.signalCode) child.kill('SIGKILL')
    }
    const sessionsFile = path.join(stateDir, 'agents/main/sessions/sessions.json')
    const before = JSON.parse(fs.readFileSync(sessionsFile, 'utf8'))['agent:main:main']
    expect(before).toMatchObject({ status: 'running', activeRunId: 'doomed-run' })
    const transcriptFile = path.join(stateDir, `agents/main/sessions/${before.sessionId}.jsonl`)
    const linesBefore = fs.readFileSync(transcriptFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l))
    expect(linesBefore.map((e) => e.message?.role ?? e.type)).toEqual(['session', 'user', 'assistant'])
    // the write lock of the dead process is still on disk
    expect(fs.existsSync(`${transcriptFile}.lock`)).toBe(true)
    // and simulate a torn last write on top
    fs.appendFileSync(transcriptFile, '{"type":"message","id":"torn","mess')

    server.script([{ text: 'All good again.' }])
    const restartAt = Date.now()
    const t = await startTestRuntime(server, { stateDir })
    try {
      expect(t.runtime.recovered).toEqual([{ sessionKey: 'agent:main:main', sessionId: before.sessionId, runId: 'doomed-run' }])
      const row = (await t.call('sessions.list', {})).sessions[0]
      expect(row).toMatchObject({ status: 'failed', interrupted: true, lastError: expect.stringContaining('interrupted') })
      expect(row.activeRunId).toBeUndefined()
      // every earlier line is still there, the dangling call got a result, the run is marked interrupted
      const text = fs.readFileSync(transcriptFile, 'utf8')
      const parsed = text.split('\n').filter(Boolean).flatMap((l) => {
        try {
          return [JSON.parse(l)]
        } catch {
          return []
        }
      })
      expect(parsed.slice(0, 3)).toEqual(linesBefore)
      expect(parsed.find((e) => e.message?.role === 'toolResult')?.message).toMatchObject({ toolCallId: 'call_long', isError: true })
      expect(parsed.find((e) => e.type === 'run')).toMatchObject({ phase: 'interrupted', runId: 'doomed-run' })

      await t.call('agent', { message: 'are you there?', idempotencyKey: 'after-crash' })
      expect((await t.call('agent.wait', { runId: 'after-crash', timeoutMs: 15_000 })).status).toBe('ok')
      const hist = await t.call('chat.history', { sessionKey: 'main' })
      // the run is closed as interrupted (its last turn called a tool: it did not finish), no text of its own
      expect(hist.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant', 'user', 'assistant'])
      expect(hist.messages[3]).toMatchObject({ runId: 'doomed-run', stopReason: 'error', errorMessage: INTERRUPTED_RUN, interrupted: true, content: [] })
      // timed by when the run was last seen, not by the restart
      expect(hist.messages[3].timestamp).toBeLessThan(restartAt)
      expect(hist.messages.at(-1)!.content).toEqual([{ type: 'text', text: 'All good again.' }])
      // the request sent to the model was well-formed: the tool call has its (synthetic) result
      const req = server.requests.at(-1)!.body.messages
      expect(req.find((m: any) => m.role === 'tool')).toMatchObject({ tool_call_id: 'call_long' })
      expect((await t.call('sessions.list', {})).sessions[0].status).toBe('done')
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }, 60_000)

  it('killed while the model streams: the user message survives and the session runs again', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-kill9-'))
    fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server)))
    server.script([{ text: 'a b c d e f g h i j', chunks: 10, delayMs: 300 }])
    const { child, waitFor } = startChild(stateDir, 'tell me a long story')
    try {
      await waitFor('DELTA')
      await eventLogHas(stateDir, '"delta":"b ')
      child.kill('SIGKILL')
      await killed(child)
    } finally {
      if (child.exitCode === null && !child.signalCode) child.kill('SIGKILL')
    }
    server.script([{ text: 'Here is the story.' }])
    const restartAt = Date.now()
    const t = await startTestRuntime(server, { stateDir })
    try {
      expect(t.runtime.recovered).toHaveLength(1)
      await t.call('agent', { message: 'again please', idempotencyKey: 'again' })
      expect((await t.call('agent.wait', { runId: 'again', timeoutMs: 15_000 })).status).toBe('ok')
      const hist = await t.call('chat.history', { sessionKey: 'main' })
      // the reply as far as it had streamed stays, closed as interrupted
      expect(hist.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant'])
      expect(JSON.stringify(hist.messages[0].content)).toContain('tell me a long story')
      const partial = hist.messages[1]
      expect(partial).toMatchObject({ runId: 'doomed-run', stopReason: 'error', errorMessage: INTERRUPTED_PARTIAL, interrupted: true })
      const text = (partial.content as Array<{ text: string }>)[0].text
      expect(text.startsWith('a b ')).toBe(true)
      expect('a b c d e f g h i j'.startsWith(text)).toBe(true)
      // it started when its text did and ended when the run was last seen alive, before the restart
      expect(partial.timestamp).toBeGreaterThanOrEqual(hist.messages[0].timestamp)
      expect(partial.completedAt ?? partial.timestamp).toBeLessThan(restartAt)
      // the next request did not send the cut-off reply to the model as if it were complete
      const sent = JSON.stringify(server.requests.at(-1)!.body.messages)
      expect(sent).not.toContain(text)
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }, 60_000)

  it('killed while the reply streams: at most about the event log\'s flush interval (250 ms) of the streamed text is lost', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-kill9-'))
    fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server)))
    // a word every 50 ms
    const words = Array.from({ length: 100 }, (_, i) => `w${String(i).padStart(2, '0')} `)
    server.script([{ textChunks: words, delayMs: 50 }])
    const lastWord = (text: string) => Math.max(-1, ...[...text.matchAll(/w(\d\d) /g)].map((m) => Number(m[1])))
    const { child, waitFor, stdout } = startChild(stateDir, 'stream a long reply')
    let seen: number
    try {
      // the log was just appended when it first holds a word; the kill comes 14 words (~700 ms) after that: a
      // 1 s interval would lose all of them, a 250 ms one only what streamed since its last tick
      await eventLogHas(stateDir, '"delta":"w05 ')
      const dir = path.join(stateDir, 'agents/main/events')
      const flushed = lastWord(fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join(''))
      await waitFor(`"w${String(flushed + 14).padStart(2, '0')} "`)
      child.kill('SIGKILL')
      await killed(child)
      seen = lastWord(stdout())
    } finally {
      if (child.exitCode === null && !child.signalCode) child.kill('SIGKILL')
    }
    const t = await startTestRuntime(server, { stateDir })
    try {
      const hist = await t.call('chat.history', { sessionKey: 'main' })
      const partial = hist.messages.at(-1)!
      expect(partial).toMatchObject({ runId: 'doomed-run', errorMessage: INTERRUPTED_PARTIAL, interrupted: true })
      const text = (partial.content as Array<{ text: string }>)[0].text
      expect(words.join('').startsWith(text)).toBe(true)
      // lost: the words the user saw that the recovered reply lacks; 250 ms is 5 words, the rest is slack for a
      // busy machine's late timers
      const lost = seen - lastWord(text)
      expect(seen).toBeGreaterThanOrEqual(19)
      expect(lost).toBeGreaterThanOrEqual(0)
      expect(lost).toBeLessThanOrEqual(8)
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }, 60_000)

  it('killed while the reply streams after its tools: tools kept, the text after them kept as the interrupted partial', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-kill9-'))
    fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server, { tools: { exec: { allowlist: ['sleep *'] } } })))
    server.script([
      { text: 'Checking first.', toolCalls: [{ id: 'call_quick', name: 'exec', args: { command: 'sleep 0' } }] },
      { text: 'k l m n o p q r s t', chunks: 10, delayMs: 300 },
    ])
    const { child, waitFor } = startChild(stateDir, 'check then tell')
    try {
      await waitFor('DELTA')
      await eventLogHas(stateDir, '"delta":"l ')
      child.kill('SIGKILL')
      await killed(child)
    } finally {
      if (child.exitCode === null && !child.signalCode) child.kill('SIGKILL')
    }
    const t = await startTestRuntime(server, { stateDir })
    try {
      const hist = await t.call('chat.history', { sessionKey: 'main' })
      expect(hist.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant'])
      expect(hist.messages[2]).toMatchObject({ toolCallId: 'call_quick', isError: false })
      const partial = hist.messages[3]
      expect(partial).toMatchObject({ stopReason: 'error', errorMessage: INTERRUPTED_PARTIAL, interrupted: true })
      const text = (partial.content as Array<{ text: string }>)[0].text
      // only the message that was streaming: not the text before the tool again
      expect(text.startsWith('k l ')).toBe(true)
      expect('k l m n o p q r s t'.startsWith(text)).toBe(true)
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }, 60_000)

  it('killed with a follow-up paused after a Stop: it comes back paused, not as an interrupted message, and the session stays idle', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-kill9-'))
    fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server)))
    server.script([{ text: 'a b c d e f g h i j k l m n o p', chunks: 16, delayMs: 200 }])
    const { child, waitFor } = startChild(stateDir, '', 'kill9-held-child.ts')
    try {
      await waitFor('HELD')
      child.kill('SIGKILL')
      await killed(child)
    } finally {
      if (child.exitCode === null && !child.signalCode) child.kill('SIGKILL')
    }
    server.script([{ text: 'Answering the follow-up.' }])
    const t = await startTestRuntime(server, { stateDir })
    try {
      expect(t.runtime.recovered).toEqual([])
      const row = (await t.call('sessions.list', {})).sessions[0]
      expect(row.interrupted).not.toBe(true)
      expect(row.status).not.toBe('failed')
      const items = (await t.call('loopdesk.queue.list', { sessionKey: 'main' })).items
      expect(items).toMatchObject([{ text: 'and then a PAUSED-FOLLOW-UP', status: 'queued', held: true, runId: 'second' }])
      // not in the transcript as a message the crash left unanswered
      const hist = await t.call('chat.history', { sessionKey: 'main' })
      expect(JSON.stringify(hist.messages)).not.toContain('PAUSED-FOLLOW-UP')
      expect(hist.messages.at(-1)).toMatchObject({ stopReason: 'aborted' })

      // still paused after another crash-free restart's worth of journal: releasing it sends it
      expect((await t.call('loopdesk.queue.release', { sessionKey: 'main' })).ids).toHaveLength(1)
      expect((await t.call('agent.wait', { runId: 'second', timeoutMs: 15_000 })).status).toBe('ok')
      const after = await t.call('chat.history', { sessionKey: 'main' })
      expect(after.messages.slice(-2).map((m) => m.role)).toEqual(['user', 'assistant'])
      expect(JSON.stringify(after.messages.at(-2)!.content)).toContain('PAUSED-FOLLOW-UP')
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }, 60_000)

  it('a graceful restart keeps a paused follow-up paused too', async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-kill9-'))
    fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(server)))
    server.script([{ text: 'a b c d e f g h i j k l m n o p', chunks: 16, delayMs: 200 }])
    const first = await startTestRuntime(server, { stateDir })
    try {
      await first.call('chat.send', { sessionKey: 'main', message: 'tell me a long story', idempotencyKey: 'first' })
      for (let i = 0; i < 200 && !first.events.some((e) => e.event === 'agent' && e.payload.stream === 'assistant'); i++) await new Promise((r) => setTimeout(r, 20))
      await first.call('chat.send', { sessionKey: 'main', message: 'and then a PAUSED-FOLLOW-UP', idempotencyKey: 'second', queueMode: 'followup' })
      await first.call('loopdesk.queue.hold', { sessionKey: 'main' })
      await first.call('chat.abort', { sessionKey: 'main', runId: 'first' })
      await first.call('agent.wait', { runId: 'first', timeoutMs: 10_000 })
    } finally {
      await first.close()
    }
    const t = await startTestRuntime(server, { stateDir })
    try {
      expect(t.runtime.recovered).toEqual([])
      const items = (await t.call('loopdesk.queue.list', { sessionKey: 'main' })).items
      expect(items).toMatchObject([{ text: 'and then a PAUSED-FOLLOW-UP', status: 'queued', held: true }])
    } finally {
      await t.close()
      fs.rmSync(stateDir, { recursive: true, force: true })
    }
  }, 60_000)
})
