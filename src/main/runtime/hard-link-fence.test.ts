// A hard link in the workspace to a file of the state dir is the same file under a workspace name: every path
// check passes, so the tools compare the opened file's device + inode with the fenced folders' files
// (tools/linked-secrets.ts). Hard links to ordinary files (pnpm's store, `git clone --local`) stay readable.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../test/fixtures/test-runtime'

let server: ModelServer
let t: TestRuntime
let store: string

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  t = await startTestRuntime(server)
  store = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-store-'))
})
afterAll(async () => {
  await t?.close()
  await server?.close()
  fs.rmSync(t.stateDir, { recursive: true, force: true })
  fs.rmSync(store, { recursive: true, force: true })
})

function toolResults(runId: string): string[] {
  return t.events
    .filter((e) => e.event === 'agent' && e.payload.runId === runId && e.payload.stream === 'tool' && e.payload.data.phase === 'result')
    .map((e) => (e.event === 'agent' ? JSON.stringify(e.payload.data) : ''))
}

it('read, edit and grep refuse a workspace hard link to a state-dir file; one to an ordinary file works; write replaces the link', async () => {
  expect(t.workspace).toBe(path.join(t.stateDir, 'workspace'))
  fs.mkdirSync(path.join(t.stateDir, 'gateway'), { recursive: true })
  fs.mkdirSync(t.workspace, { recursive: true })
  const token = path.join(t.stateDir, 'gateway', 'token')
  fs.writeFileSync(token, 'SECRET-TOKEN-123\n', { mode: 0o600 })
  fs.linkSync(token, path.join(t.workspace, 'token.txt'))
  fs.linkSync(path.join(t.stateDir, 'loopdesk.json'), path.join(t.workspace, 'cfg.json'))
  const shared = path.join(store, 'index.js')
  fs.writeFileSync(shared, 'module.exports = "from the store"\n')
  fs.mkdirSync(path.join(t.workspace, 'vendor', 'dep'), { recursive: true })
  fs.linkSync(shared, path.join(t.workspace, 'vendor', 'dep', 'index.js'))
  const configBefore = fs.readFileSync(path.join(t.stateDir, 'loopdesk.json'), 'utf8')

  server.script([
    {
      toolCalls: [
        { name: 'read', args: { path: 'token.txt' } },
        { name: 'edit', args: { path: 'cfg.json', oldText: '{', newText: '{ ' } },
        { name: 'grep', args: { pattern: 'SECRET|store' } },
        { name: 'read', args: { path: 'vendor/dep/index.js' } },
        // write replaces the name (rename), never writing through the link into the state dir's file
        { name: 'write', args: { path: 'cfg.json', content: '{"mine": true}' } },
      ],
    },
    { text: 'done' },
  ])
  await t.call('agent', { message: 'go', idempotencyKey: 'hl-1', sessionKey: 'agent:main:hl' })
  expect((await t.call('agent.wait', { runId: 'hl-1', timeoutMs: 10_000 })).status).toBe('ok')
  const results = toolResults('hl-1')
  expect(results).toHaveLength(5)
  const all = results.join('\n')
  expect(all).not.toContain('SECRET-TOKEN-123')
  expect(results[0]).toContain('is a hard link to a file in Loopdesk')
  expect(results[1]).toContain('is a hard link to a file in Loopdesk')
  // grep passes over the linked token and finds the store file
  expect(results[2]).toContain('from the store')
  expect(results[3]).toContain('from the store')
  expect(fs.readFileSync(path.join(t.stateDir, 'loopdesk.json'), 'utf8')).toBe(configBefore)
  expect(fs.readFileSync(path.join(t.workspace, 'cfg.json'), 'utf8')).toBe('{"mine": true}')
  expect(fs.statSync(path.join(t.stateDir, 'loopdesk.json')).nlink).toBe(1)
})
