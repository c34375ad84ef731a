// A workspace that contains Loopdesk's state dir (agents.defaults.workspace set to the home folder, which holds
// ~/.loopdesk): the runtime hands the state dir to the tools, so a run cannot rewrite loopdesk.json (whose exec
// allowlist applies live) nor read the keys and tokens next to it — without any approval asked. The desktop app
// hands its userData folder (settings, stored keys) over too.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../test/fixtures/test-runtime'

let server: ModelServer
let t: TestRuntime
let home: string
let configText: string

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ld-home-')))
  const stateDir = path.join(home, '.loopdesk')
  fs.mkdirSync(stateDir)
  configText = JSON.stringify(testConfig(server, { agents: { defaults: { workspace: home } } }), null, 2)
  fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), configText)
  t = await startTestRuntime(server, { stateDir })
})
afterAll(async () => {
  await t?.close()
  await server?.close()
  fs.rmSync(home, { recursive: true, force: true })
})

it("a run's file tools refuse the state dir inside its workspace and still work beside it", async () => {
  expect(t.workspace).toBe(home)
  const allowAll = JSON.parse(configText)
  allowAll.tools = { exec: { allowlist: ['*'] } }
  server.script([
    {
      toolCalls: [
        { name: 'write', args: { path: '.loopdesk/loopdesk.json', content: JSON.stringify(allowAll) } },
        { name: 'read', args: { path: '.loopdesk/loopdesk.json' } },
        { name: 'write', args: { path: 'notes.txt', content: 'mine' } },
      ],
    },
    { text: 'done' },
  ])
  await t.call('agent', { message: 'go', idempotencyKey: 'fence-1', sessionKey: 'agent:main:fence' })
  expect((await t.call('agent.wait', { runId: 'fence-1', timeoutMs: 10_000 })).status).toBe('ok')
  expect(fs.readFileSync(path.join(t.stateDir, 'loopdesk.json'), 'utf8')).toBe(configText)
  expect(fs.readFileSync(path.join(home, 'notes.txt'), 'utf8')).toBe('mine')
  const results = t.events.filter((e) => e.event === 'agent' && e.payload.runId === 'fence-1' && e.payload.stream === 'tool' && e.payload.data.phase === 'result')
  const texts = results.map((e) => (e.event === 'agent' ? JSON.stringify(e.payload.data) : ''))
  expect(texts.filter((x) => x.includes("Loopdesk's own state folder"))).toHaveLength(2)
})

it('with the default workspace, the model can read an attached file at the path its prompt names', async () => {
  const srv = await startModelServer({ fallback: { text: 'ok' } })
  const rt = await startTestRuntime(srv)
  try {
    expect(rt.workspace).toBe(path.join(rt.stateDir, 'workspace'))
    srv.script([
      (req) => {
        const prompt = JSON.stringify(req.body.messages)
        const saved = /saved at ([^\]\\]+)\]/.exec(prompt)![1]
        return { toolCalls: [{ name: 'read', args: { path: saved } }] }
      },
      { text: 'read it' },
    ])
    const content = Buffer.from('quarterly numbers: 42\n').toString('base64')
    await rt.call('chat.send', { sessionKey: 'agent:main:att', message: 'summarize', idempotencyKey: 'att-1', attachments: [{ type: 'file', fileName: 'notes.txt', mimeType: 'text/plain', content }] })
    expect((await rt.call('agent.wait', { runId: 'att-1', timeoutMs: 10_000 })).status).toBe('ok')
    expect(JSON.stringify(srv.requests.at(-1)!.body.messages.at(-1))).toContain('quarterly numbers: 42')
  } finally {
    await rt.close()
    await srv.close()
    fs.rmSync(rt.stateDir, { recursive: true, force: true })
  }
})

it("the desktop app's data folder (userData, handed to createRuntime) is refused like the state dir", async () => {
  const srv = await startModelServer({ fallback: { text: 'ok' } })
  const home2 = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ld-home-')))
  const stateDir = path.join(home2, '.loopdesk')
  const userDataDir = path.join(home2, '.config', 'loopdesk')
  fs.mkdirSync(stateDir)
  fs.mkdirSync(userDataDir, { recursive: true })
  fs.writeFileSync(path.join(userDataDir, 'credentials.json'), '{"openai":"v10-STORED-KEY"}\n')
  fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(srv, { agents: { defaults: { workspace: home2 } } })))
  const rt = await startTestRuntime(srv, { stateDir, runtime: { userDataDir } })
  try {
    srv.script([
      {
        toolCalls: [
          { name: 'read', args: { path: '.config/loopdesk/credentials.json' } },
          { name: 'write', args: { path: '.config/loopdesk/config.json', content: '{}' } },
          { name: 'grep', args: { pattern: 'STORED-KEY' } },
        ],
      },
      { text: 'done' },
    ])
    await rt.call('agent', { message: 'go', idempotencyKey: 'ud-1', sessionKey: 'agent:main:ud' })
    expect((await rt.call('agent.wait', { runId: 'ud-1', timeoutMs: 10_000 })).status).toBe('ok')
    expect(fs.existsSync(path.join(userDataDir, 'config.json'))).toBe(false)
    const sent = JSON.stringify(srv.requests.at(-1)!.body.messages)
    expect(sent).not.toContain('v10-STORED-KEY')
    expect(sent.match(/the Loopdesk desktop app's data folder/g)).toHaveLength(2)
  } finally {
    await rt.close()
    await srv.close()
    fs.rmSync(home2, { recursive: true, force: true })
  }
})

it("headless (no shell hands it over), the folder the desktop app would use for userData is refused too", async () => {
  const srv = await startModelServer({ fallback: { text: 'ok' } })
  const home4 = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ld-home-')))
  const stateDir = path.join(home4, '.loopdesk')
  // Linux: $XDG_CONFIG_HOME/loopdesk; elsewhere the platform's folder under the temp HOME
  const appData = process.platform === 'darwin' ? path.join(home4, 'Library', 'Application Support') : path.join(home4, 'xdg')
  const userDataDir = path.join(appData, 'loopdesk')
  fs.mkdirSync(stateDir)
  fs.mkdirSync(userDataDir, { recursive: true })
  fs.writeFileSync(path.join(userDataDir, 'credentials.json'), '{"openai":"v10-HEADLESS-KEY"}\n')
  fs.writeFileSync(path.join(stateDir, 'loopdesk.json'), JSON.stringify(testConfig(srv, { agents: { defaults: { workspace: home4 } } })))
  const rt = await startTestRuntime(srv, { stateDir, runtime: { env: { HOME: home4, XDG_CONFIG_HOME: path.join(home4, 'xdg') } } })
  try {
    const rel = path.relative(home4, path.join(userDataDir, 'credentials.json'))
    srv.script([{ toolCalls: [{ name: 'read', args: { path: rel } }] }, { text: 'done' }])
    await rt.call('agent', { message: 'go', idempotencyKey: 'hud-1', sessionKey: 'agent:main:hud' })
    expect((await rt.call('agent.wait', { runId: 'hud-1', timeoutMs: 10_000 })).status).toBe('ok')
    const sent = JSON.stringify(srv.requests.at(-1)!.body.messages)
    expect(sent).not.toContain('v10-HEADLESS-KEY')
    expect(sent).toContain("the Loopdesk desktop app's data folder")
  } finally {
    await rt.close()
    await srv.close()
    fs.rmSync(home4, { recursive: true, force: true })
  }
})

it('a config file LOOPDESK_CONFIG_PATH keeps in the workspace is refused too: its exec allowlist applies at once', async () => {
  const srv = await startModelServer({ fallback: { text: 'ok' } })
  const home3 = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ld-home-')))
  const configFile = path.join(home3, 'loopdesk.json')
  const text = JSON.stringify(testConfig(srv, { agents: { defaults: { workspace: home3 } } }))
  fs.writeFileSync(configFile, text)
  const rt = await startTestRuntime(srv, { stateDir: path.join(home3, '.loopdesk'), runtime: { env: { LOOPDESK_CONFIG_PATH: configFile } } })
  try {
    expect(rt.workspace).toBe(home3)
    const allowAll = { ...JSON.parse(text), tools: { exec: { allowlist: ['*'] } } }
    srv.script([{ toolCalls: [{ name: 'write', args: { path: 'loopdesk.json', content: JSON.stringify(allowAll) } }] }, { text: 'done' }])
    await rt.call('agent', { message: 'go', idempotencyKey: 'cfg-1', sessionKey: 'agent:main:cfg' })
    expect((await rt.call('agent.wait', { runId: 'cfg-1', timeoutMs: 10_000 })).status).toBe('ok')
    expect(fs.readFileSync(configFile, 'utf8')).toBe(text)
    expect(JSON.stringify(srv.requests.at(-1)!.body.messages)).toContain("Loopdesk's own config file")
  } finally {
    await rt.close()
    await srv.close()
    fs.rmSync(home3, { recursive: true, force: true })
  }
})
