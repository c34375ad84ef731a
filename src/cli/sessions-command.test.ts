// `loopdesk sessions`: the gateway's sessions as a table (or JSON), newest first; --search by title, key and
// messages. In-process CLI against the real runtime + gateway + scripted model server.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { startTestRuntimeGateway, type TestRuntime, type TestRuntimeGateway } from '../../test/fixtures/test-runtime'
import type { GatewayHandle } from '../main/gateway/server'

const TOKEN = 'sessions-token-0123456789abcdef'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle
let stack: TestRuntimeGateway | undefined

async function run(message: string, key: string, reply: string) {
  server.push({ text: reply, chunks: 1 })
  await rt.call('agent', { message, sessionKey: key, idempotencyKey: `${key}-${message}` })
  await rt.call('agent.wait', { runId: `${key}-${message}`, timeoutMs: 10_000 })
}

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  stack = await startTestRuntimeGateway(server, TOKEN)
  rt = stack.rt
  gw = stack.gw
  await run('plan the garden beds', 'agent:main:garden', 'Tomatoes go in the sunniest bed.')
  await run('what about taxes?', 'agent:main:taxes', 'File before April.')
  await rt.call('sessions.patch', { key: 'agent:main:taxes', label: 'Tax questions', permissionMode: 'read-only' })
})
afterAll(async () => {
  await stack?.close()
  await server?.close()
})

const cli = (args: string[]) =>
  runCliCaptured(['sessions', ...args, '--url', gw.url, '--state-dir', tempDir('loopdesk-cli-ses-')], { LOOPDESK_GATEWAY_TOKEN: TOKEN })

describe('loopdesk sessions', () => {
  it('lists newest first with the titles the window shows (and which sessions are read-only)', async () => {
    const r = await cli([])
    expect(r.code).toBe(0)
    const lines = r.out.trim().split('\n')
    expect(lines[0]).toMatch(/^KEY\s+TITLE\s+STATUS\s+UPDATED\s+TOKENS$/)
    expect(lines[1]).toMatch(/^agent:main:taxes\s+Tax questions\s+idle, read-only\s+just now\s+\d+$/)
    expect(lines[2]).toMatch(/^agent:main:garden\s+plan the garden beds\s+idle\s+just now\s+\d+$/)
    const limited = await cli(['--limit', '1'])
    expect(limited.out.trim().split('\n')).toHaveLength(2)
  })

  it('--search finds a session by its messages and shows the matching line; --json for scripts', async () => {
    const r = await cli(['--search', 'sunniest'])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/agent:main:garden .*\n {4}assistant: Tomatoes go in the sunniest bed\. {2}\[message ([\w-]+)\]\n$/)
    expect(r.out).not.toContain('taxes')
    // the matching message's id, for a chat.history window around it (`messageId`)
    const hit = JSON.parse((await cli(['--search', 'sunniest', '--json'])).out) as Array<{ key: string; messageId?: string }>
    const id = hit[0].messageId
    expect(id).toBeTruthy()
    expect(r.out).toContain(`[message ${id}]`)
    const around = (await rt.call('chat.history', { sessionKey: 'agent:main:garden', messageId: id, limit: 1 })) as { messages: Array<{ __openclaw?: { id: string } }> }
    expect(around.messages[0]?.__openclaw?.id).toBe(id)
    const byTitle = JSON.parse((await cli(['--search', 'tax', '--json'])).out) as Array<{ key: string; title: string; match?: string; readOnly?: boolean }>
    expect(byTitle.map((s) => s.key)).toEqual(['agent:main:taxes'])
    expect(byTitle[0].readOnly).toBe(true)
    expect((await cli(['--search', 'nothing like this'])).out).toBe('no sessions match "nothing like this"\n')
  })

  it('a run the user stopped leaves the session "idle", as the window says (OpenClaw status killed)', async () => {
    server.push({ textChunks: ['slow ', 'reply ', 'never ', 'finished'], delayMs: 300 })
    await rt.call('agent', { message: 'long one', sessionKey: 'agent:main:stopped', idempotencyKey: 'stop-1' })
    await server.waitForRequests(server.requests.length + 1, 10_000)
    await rt.call('chat.abort', { sessionKey: 'agent:main:stopped', runId: 'stop-1' })
    await rt.call('agent.wait', { runId: 'stop-1', timeoutMs: 10_000 })
    expect((await cli(['--limit', '1'])).out.split('\n')[1]).toMatch(/^agent:main:stopped\s+long one\s+idle\s/)
  })

  it('usage errors exit 2', async () => {
    expect((await cli(['--limit', '0'])).code).toBe(2)
    expect((await cli(['--search', ' '])).code).toBe(2)
    expect((await cli(['stray'])).code).toBe(2)
  })
})

describe('loopdesk sessions export', () => {
  it('prints the conversation as Markdown: turns, a tool call and its result; --thinking adds the reasoning; --json the messages', async () => {
    server.push({ reasoning: 'Check the file first.', toolCalls: [{ name: 'read', args: { path: 'notes/missing.txt' } }] })
    server.push({ text: 'That file does not exist, so: **start fresh**.', chunks: 1 })
    await rt.call('agent', { message: 'summarize my notes', sessionKey: 'agent:main:notes', idempotencyKey: 'notes-1' })
    await rt.call('agent.wait', { runId: 'notes-1', timeoutMs: 10_000 })

    const md = await cli(['export', 'agent:main:notes'])
    expect(md.code).toBe(0)
    expect(md.out).toMatch(/^# summarize my notes\n\nSession `agent:main:notes` · 4 messages · exported \d{4}-\d\d-\d\d \d\d:\d\d UTC\n/)
    expect(md.out).toMatch(/## You — .*\n\nsummarize my notes\n/)
    expect(md.out).toContain('**Tool** `read` — notes/missing.txt')
    expect(md.out).toMatch(/\*`read` failed:\*\n\n```text\n.*missing\.txt/)
    expect(md.out).toContain('That file does not exist, so: **start fresh**.')
    expect(md.out).not.toContain('Check the file first.')
    expect((await cli(['export', 'agent:main:notes', '--thinking'])).out).toContain('> Check the file first.')

    const json = JSON.parse((await cli(['export', 'agent:main:notes', '--json'])).out)
    expect(json.sessionKey).toBe('agent:main:notes')
    expect(json.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'toolResult', 'assistant'])
  })

  it('a message over 128 KiB is exported whole (chat.history would show a placeholder for it)', async () => {
    const long = `${'All work and no play. '.repeat(9000)}THE END`
    server.push({ text: long, chunks: 8 })
    await rt.call('agent', { message: 'write a lot', sessionKey: 'agent:main:long', idempotencyKey: 'long-1' })
    await rt.call('agent.wait', { runId: 'long-1', timeoutMs: 20_000 })
    expect(JSON.stringify((await rt.call('chat.history', { sessionKey: 'agent:main:long' })).messages)).toContain('message too large')
    const md = await cli(['export', 'agent:main:long'])
    expect(md.code).toBe(0)
    expect(md.out).toContain(long)
    expect(md.out).not.toContain('message too large')
  })

  it('a transcript with damaged lines is exported with a warning on stderr naming the count and the file', async () => {
    await run('one', 'agent:main:torn', 'Reply one.')
    await run('two', 'agent:main:torn', 'Reply two.')
    expect((await cli(['export', 'agent:main:torn'])).err).toBe('')
    const { sessionId } = await rt.call('chat.history', { sessionKey: 'agent:main:torn' })
    const file = path.join(rt.stateDir, 'agents', 'main', 'sessions', `${sessionId}.jsonl`)
    const lines = fs.readFileSync(file, 'utf8').split('\n')
    const i = lines.findIndex((l) => l.includes('"text":"one"'))
    lines.splice(i, 1, lines[i].slice(0, 30), '%%%')
    fs.writeFileSync(file, lines.join('\n'))
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const md = await cli(['export', 'agent:main:torn'])
      expect(md.code).toBe(0)
      expect(md.out).toContain('Reply two.')
      expect(md.err).toBe(`loopdesk: warning: 2 lines of this conversation could not be read and are missing from the export (file ${file})\n`)
      expect((await cli(['export', 'agent:main:torn', '--json'])).err).toContain('2 lines')
    } finally {
      warn.mockRestore()
    }
  })

  it('a session that does not exist, and usage errors', async () => {
    const none = await cli(['export', 'agent:main:nothing-here'])
    expect(none).toMatchObject({ code: 1, err: 'loopdesk: no session agent:main:nothing-here (see: loopdesk sessions)\n' })
    expect((await cli(['export'])).code).toBe(2)
    expect((await cli(['export', 'a', 'b'])).code).toBe(2)
    expect((await cli(['export', 'agent:main:notes', '--search', 'x'])).code).toBe(2)
  })
})

describe('loopdesk sessions fork', () => {
  it('prints the new session, which holds a copy of the conversation; --from-last-reply stops at the last completed reply', async () => {
    const r = await cli(['fork', 'agent:main:garden'])
    expect(r.code).toBe(0)
    const key = r.out.trim()
    expect(key).toMatch(/^agent:main:chat-/)
    const hist = await rt.call('chat.history', { sessionKey: key })
    expect(hist.messages.map((m) => m.role)).toEqual(['user', 'assistant'])
    const row = (await rt.call('sessions.list', {})).sessions.find((s) => s.key === key)!
    expect(row).toMatchObject({ displayName: 'plan the garden beds (fork)', spawnedBy: 'agent:main:garden' })
    const json = JSON.parse((await cli(['fork', 'agent:main:garden', '--from-last-reply', '--json'])).out)
    expect(json).toMatchObject({ ok: true, entry: { spawnedBy: 'agent:main:garden' } })
    // the gateway numbers forks as the window's are: "(fork)" is taken by now
    expect(json.entry.displayName).toBe('plan the garden beds (fork 2)')
    // a short key is the default agent's: the fork is named after the same title
    const short = JSON.parse((await cli(['fork', 'Garden', '--json'])).out)
    expect(short.entry).toMatchObject({ displayName: 'plan the garden beds (fork 3)', spawnedBy: 'agent:main:garden' })
    // a name given is kept as it is
    const named = JSON.parse((await cli(['fork', 'agent:main:garden', '--name', 'Raised beds', '--json'])).out)
    expect(named.entry).toMatchObject({ label: 'Raised beds', spawnedBy: 'agent:main:garden' })
    expect(named.entry.displayName).toBeUndefined()
    expect((await cli(['fork', 'agent:main:garden', '--name', ' '])).code).toBe(2)
    expect((await cli(['fork', 'agent:main:nobody'])).code).toBe(1)
    expect((await cli(['fork'])).code).toBe(2)
    expect(await cli(['fork', 'agent:main:garden', '--thinking'])).toMatchObject({ code: 2, err: 'loopdesk: sessions fork takes no --thinking (see: loopdesk --help)\n' })
    expect((await cli(['--older-than', '3'])).code).toBe(2)
  })
})
