// Hostile input against the headless gateway (child process):
// - a fuzzer sends > 10,000 generated frames over many connections, before and after the handshake:
//   every request gets a structured error `res` (or a close with the right code: 1008 policy, 1009 too
//   big, 1002 protocol error, 1007 bad UTF-8), a control client keeps getting `health` answers, the
//   gateway's memory stays flat between two identical rounds, and it still runs agents afterwards;
// - tool calls scripted through the model that try to leave the workspace (`../`, absolute paths,
//   symlinks, exec) are refused and leak nothing;
// - config with wrong types: config.patch names the bad path and never writes; a hand-broken
//   loopdesk.json keeps the last good config and is rewritten only by a patch adding no problem to it.
import fs from 'node:fs'
import path from 'node:path'
import WebSocket from 'ws'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type CapturedRequest, type ModelServer, type Turn } from '../fixtures/model-server'
import { until } from '../fixtures/until'
import { openClient, type TestClient } from './support/client'
import { countResponses, postAuthFrame, Rng, type Counted } from './support/fuzz'
import { startGatewayChild, type GatewayChild } from './support/gateway-process'
import { findSecrets, LogSink } from './support/logs'
import { lastMessage, lastUserText, newApiKey, newToken, sleep, suiteConfig, tempStateDir, writeConfig } from './support/setup'

const token = newToken()
const apiKey = newApiKey()
const logs = new LogSink()
let server: ModelServer
let stateDir: string
let workspace: string
let outsideDir: string
let gw: GatewayChild
let configFile: string
const SECRET_CONTENT = `TOPSECRET-${Date.now()}`

// ---- model script: ESCAPE=<n> makes the model call tool n; a tool result gets a short answer
const ESCAPES: Array<{ name: string; args: Record<string, unknown>; expectError: boolean }> = [
  { name: 'read', args: { path: '../outside/secret.txt' }, expectError: true },
  { name: 'read', args: { path: '' }, expectError: true },
  { name: 'write', args: { path: '../outside/planted.txt', content: 'pwned' }, expectError: true },
  { name: 'edit', args: { path: '../outside/secret.txt', oldText: 'TOPSECRET', newText: 'changed' }, expectError: true },
  { name: 'ls', args: { path: '..' }, expectError: true },
  { name: 'ls', args: { path: '/etc' }, expectError: true },
  { name: 'glob', args: { pattern: '*', path: '../outside' }, expectError: true },
  { name: 'grep', args: { pattern: 'TOPSECRET', path: '/' }, expectError: true },
  { name: 'read', args: { path: 'dirlink/secret.txt' }, expectError: true },
  { name: 'read', args: { path: 'filelink' }, expectError: true },
  { name: 'write', args: { path: 'dirlink/planted.txt', content: 'pwned' }, expectError: true },
  { name: 'write', args: { path: 'filelink', content: 'overwritten through a symlink' }, expectError: true },
  // searching the whole workspace must not follow the symlinks out of it
  { name: 'grep', args: { pattern: 'TOPSECRET' }, expectError: false },
  { name: 'glob', args: { pattern: '**/*' }, expectError: false },
]
const ABS = () => [
  { name: 'read', args: { path: path.join(outsideDir, 'secret.txt') }, expectError: true },
  { name: 'write', args: { path: path.join(outsideDir, 'abs-planted.txt'), content: 'pwned' }, expectError: true },
]

function script(req: CapturedRequest): Turn {
  const last = lastMessage(req)
  if (last.role === 'tool') return { text: 'done', chunks: 1 }
  const text = lastUserText(req)
  const m = /ESCAPE=(\d+)/.exec(text)
  if (m) {
    const all = [...ESCAPES, ...ABS()]
    const e = all[Number(m[1])]
    return { text: '', toolCalls: [{ id: `esc_${m[1]}`, name: e.name, args: e.args }] }
  }
  if (text.includes('EXEC-OUT')) return { text: '', toolCalls: [{ id: 'exec_out', name: 'exec', args: { command: `cat ${path.join(outsideDir, 'secret.txt')}` } }] }
  return { text: 'fine', chunks: 2 }
}

beforeAll(async () => {
  server = await startModelServer()
  server.script(script)
  stateDir = tempStateDir('hostile')
  workspace = path.join(stateDir, 'ws')
  outsideDir = path.join(stateDir, 'outside')
  fs.mkdirSync(workspace, { recursive: true })
  fs.mkdirSync(outsideDir, { recursive: true })
  fs.writeFileSync(path.join(outsideDir, 'secret.txt'), `${SECRET_CONTENT}\n`)
  fs.writeFileSync(path.join(workspace, 'inside.txt'), 'hello from inside\n')
  fs.symlinkSync(outsideDir, path.join(workspace, 'dirlink'))
  fs.symlinkSync(path.join(outsideDir, 'secret.txt'), path.join(workspace, 'filelink'))
  const cfg = suiteConfig(server, { apiKey, extra: {} })
  cfg.agents.defaults.workspace = workspace
  cfg.tools.exec.approvalTimeoutMs = 20_000
  configFile = writeConfig(stateDir, cfg)
  gw = await startGatewayChild({ stateDir, token, logs, label: 'hostile', inspect: true })
})
afterAll(async () => {
  await gw?.stop()
  await server?.close()
  if (stateDir) fs.rmSync(stateDir, { recursive: true, force: true })
})

// ------------------------------------------------------------------ raw sockets

function rawSocket(url: string): { ws: WebSocket; challenge: Promise<string>; closed: Promise<{ code: number; reason: string }>; counted: Counted } {
  const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 64 * 1024 * 1024 })
  const counted = countResponses(ws)
  const challenge = new Promise<string>((resolve, reject) => {
    ws.on('message', (d) => {
      const f = JSON.parse(d.toString())
      if (f.event === 'connect.challenge') resolve(f.payload.nonce)
    })
    ws.once('error', reject)
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
  })
  challenge.catch(() => undefined)
  ws.on('error', () => undefined)
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })))
  return { ws, challenge, closed, counted }
}

/** Sends a raw (possibly invalid) frame through ws's low-level sender. */
async function sendRawFrame(ws: WebSocket, payload: Buffer, o: { opcode: number; mask: boolean; rsv1?: boolean }) {
  const { Sender } = (await import('ws')) as unknown as { Sender: { frame(data: Buffer, opts: unknown): Buffer[] } }
  const list = Sender.frame(payload, { fin: true, opcode: o.opcode, mask: o.mask, readOnly: false, rsv1: !!o.rsv1, maskKey: Buffer.alloc(4) })
  ;(ws as unknown as { _socket: { write(b: Buffer): void } })._socket.write(Buffer.concat(list))
}

type PreAuthCase = { name: string; expectClose: number; send(ws: WebSocket, nonce: string): Promise<void> | void }
const PRE_AUTH: PreAuthCase[] = [
  { name: 'garbage text', expectClose: 1008, send: (ws) => ws.send('hello?') },
  { name: 'binary', expectClose: 1008, send: (ws) => ws.send(Buffer.from([1, 2, 3])) },
  { name: 'not connect', expectClose: 1008, send: (ws) => ws.send(JSON.stringify({ type: 'req', id: 'p1', method: 'health' })) },
  { name: 'agent before connect', expectClose: 1008, send: (ws) => ws.send(JSON.stringify({ type: 'req', id: 'p2', method: 'agent', params: { message: 'x', idempotencyKey: 'k' } })) },
  { name: 'bad connect params', expectClose: 1008, send: (ws) => ws.send(JSON.stringify({ type: 'req', id: 'p3', method: 'connect', params: { minProtocol: 'x' } })) },
  { name: 'deep nesting', expectClose: 1008, send: (ws) => ws.send('['.repeat(30_000) + ']'.repeat(30_000)) },
  { name: 'oversized (> 64 KiB)', expectClose: 1009, send: (ws) => ws.send(JSON.stringify({ type: 'req', id: 'p4', method: 'connect', params: { pad: 'x'.repeat(70 * 1024) } })) },
  { name: 'unmasked frame', expectClose: 1002, send: (ws) => sendRawFrame(ws, Buffer.from('{"type":"req"}'), { opcode: 1, mask: false }) },
  { name: 'reserved opcode', expectClose: 1002, send: (ws) => sendRawFrame(ws, Buffer.from('x'), { opcode: 3, mask: true }) },
  { name: 'rsv1 without extension', expectClose: 1002, send: (ws) => sendRawFrame(ws, Buffer.from('x'), { opcode: 1, mask: true, rsv1: true }) },
  { name: 'invalid UTF-8', expectClose: 1007, send: (ws) => sendRawFrame(ws, Buffer.from([0xc3, 0x28]), { opcode: 1, mask: true }) },
]

async function preAuthRound(url: string, n: number, problems: string[]): Promise<{ frames: number; codes: Record<number, number> }> {
  const codes: Record<number, number> = {}
  let frames = 0
  const batch = 8 // stays below the gateway's pending-handshake budget per address
  for (let i = 0; i < n; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, n - i) }, async (_, j) => {
        const c = PRE_AUTH[(i + j) % PRE_AUTH.length]
        const s = rawSocket(url)
        const nonce = await s.challenge
        await c.send(s.ws, nonce)
        frames++
        const closed = await Promise.race([s.closed, sleep(15_000).then(() => ({ code: -1, reason: 'not closed' }))])
        codes[closed.code] = (codes[closed.code] ?? 0) + 1
        if (closed.code !== c.expectClose) problems.push(`pre-auth ${c.name}: closed ${closed.code} (${closed.reason}), expected ${c.expectClose}`)
        s.counted.bad.forEach((b) => problems.push(`pre-auth ${c.name}: ${b}`))
        if (closed.code === -1) s.ws.terminate()
      }),
    )
  }
  return { frames, codes }
}

async function authed(url: string): Promise<{ ws: WebSocket; counted: Counted; closed: Promise<{ code: number; reason: string }> }> {
  // the project's client does the signed handshake; then we take over its socket
  const c = await openClient(url, token)
  const ws = (c.conn as unknown as { ws: WebSocket }).ws
  const counted = countResponses(ws)
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })))
  return { ws, counted, closed }
}

async function postAuthRound(url: string, rng: Rng, conns: number, perConn: number, base: number, problems: string[], kinds: Record<string, number>) {
  let frames = 0
  await Promise.all(
    Array.from({ length: conns }, async (_, ci) => {
      const s = await authed(url)
      const expectIds = new Set<string>()
      let sent = 0
      for (let k = 0; k < perConn; k++) {
        const f = postAuthFrame(rng, base + ci * perConn + k)
        kinds[f.kind] = (kinds[f.kind] ?? 0) + 1
        s.ws.send(f.data, { binary: Buffer.isBuffer(f.data) })
        sent++
        if (f.id) expectIds.add(f.id)
        // keep at most 64 requests in flight per socket
        if (sent - s.counted.responses > 64) await until(() => sent - s.counted.responses <= 16 || s.ws.readyState !== WebSocket.OPEN, 60_000, 'responses')
      }
      await until(() => s.counted.responses >= sent || s.ws.readyState !== WebSocket.OPEN, 120_000, `responses on connection ${ci}`).catch(() => undefined)
      frames += sent
      if (s.ws.readyState !== WebSocket.OPEN) problems.push(`post-auth connection ${ci} was closed: ${JSON.stringify(await s.closed)}`)
      if (s.counted.responses !== sent) problems.push(`post-auth connection ${ci}: ${sent} frames, ${s.counted.responses} responses`)
      for (const id of expectIds) if (!s.counted.ids.has(id)) problems.push(`post-auth connection ${ci}: no response for id ${id}`)
      // an error answer never echoes megabytes of input back
      if (s.counted.maxResponseBytes > 16 * 1024) problems.push(`post-auth connection ${ci}: a ${s.counted.maxResponseBytes}-byte response`)
      problems.push(...s.counted.bad.slice(0, 5))
      s.ws.close()
    }),
  )
  return frames
}

async function oversizedPostAuth(url: string, problems: string[]): Promise<number> {
  const s = await authed(url)
  s.ws.send(JSON.stringify({ type: 'req', id: 'big', method: 'health', params: { pad: 'x'.repeat(25 * 1024 * 1024 + 100) } }))
  const closed = await s.closed
  if (closed.code !== 1009) problems.push(`post-auth oversized frame: closed ${closed.code}, expected 1009`)
  return 1
}

describe('hostile input', () => {
  it('fuzzer: > 10,000 frames answered or closed with the right code; others keep being served; memory flat', async () => {
    const started = Date.now()
    const problems: string[] = []
    const kinds: Record<string, number> = {}
    const control = await openClient(gw.url, token)
    let healthOk = 0
    let healthFailed = 0
    let controlRunning = true
    const controlLoop = (async () => {
      while (controlRunning) {
        try {
          await control.request('health', undefined, 20_000)
          healthOk++
        } catch (err) {
          healthFailed++
          problems.push(`control health failed: ${(err as Error).message}`)
        }
        await sleep(50)
      }
    })()

    const rssStart = gw.rssKb()
    const rng = new Rng(Number(process.env.LOOPDESK_FAULTS_SEED ?? 7))
    let frames = 0
    const preCodes: Record<number, number> = {}
    const rss: number[] = []
    const heap: number[] = []
    for (let round = 0; round < 2; round++) {
      const pre = await preAuthRound(gw.url, 220, problems)
      frames += pre.frames
      for (const [k, v] of Object.entries(pre.codes)) preCodes[Number(k)] = (preCodes[Number(k)] ?? 0) + v
      frames += await postAuthRound(gw.url, rng, 16, 320, round * 1_000_000, problems, kinds)
      frames += await oversizedPostAuth(gw.url, problems)
      await sleep(500) // closed sockets are released
      heap.push(await gw.heapUsedAfterGc())
      rss.push(gw.rssKb())
    }
    controlRunning = false
    await controlLoop

    // the gateway still does real work: a fresh client runs an agent
    const fresh = await openClient(gw.url, token)
    const run = await fresh.agent({ message: 'still there?', idempotencyKey: 'after-fuzz', sessionKey: 'agent:main:after-fuzz' }).final
    await fresh.close()
    await control.close()
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()

    const growthMb = (rss[1] - rss[0]) / 1024
    const heapGrowthMb = (heap[1] - heap[0]) / 1024 / 1024
    console.log(
      `FAULTS hostile-input fuzz: frames=${frames} kinds=${JSON.stringify(kinds)} preAuthCloses=${JSON.stringify(preCodes)} ` +
        `controlHealth=${healthOk}ok/${healthFailed}failed rssKb start=${rssStart} round1=${rss[0]} round2=${rss[1]} rssGrowthMB=${growthMb.toFixed(1)} ` +
        `heapAfterGcMB round1=${(heap[0] / 2 ** 20).toFixed(1)} round2=${(heap[1] / 2 ** 20).toFixed(1)} heapGrowthMB=${heapGrowthMb.toFixed(2)} ` +
        `duration=${((Date.now() - started) / 1000).toFixed(1)}s`,
    )
    expect(problems.slice(0, 30)).toEqual([])
    expect(frames).toBeGreaterThanOrEqual(10_000)
    expect(healthOk).toBeGreaterThan(10)
    expect(run.ok).toBe(true)
    expect(gw.alive()).toBe(true)
    // the second identical round must not keep what the first one allocated: the live heap (after a full GC)
    // is flat; RSS (allocator high-water marks of the 25 MiB frames) only gets a generous bound
    expect(heapGrowthMb).toBeLessThan(8)
    expect(growthMb).toBeLessThan(128)
  })

  describe('tool calls that try to leave the workspace', () => {
    let c: TestClient
    beforeAll(async () => {
      c = await openClient(gw.url, token)
    })
    afterAll(() => c?.close())

    it('are refused (../, absolute paths, symlinks) and leak nothing', async () => {
      const all = [...ESCAPES, ...ABS()]
      const results: string[] = []
      for (let i = 0; i < all.length; i++) {
        const e = all[i]
        const runId = `escape-${i}`
        const r = await c.agent({ message: `ESCAPE=${i}`, idempotencyKey: runId, sessionKey: 'agent:main:escape' }).final
        expect(r.ok, `${e.name} ${JSON.stringify(e.args)}`).toBe(true)
        const res = c.agentEvents(runId).find((ev) => ev.stream === 'tool' && (ev.data as { phase?: string }).phase === 'result')
        expect(res, `${e.name} ${JSON.stringify(e.args)} had no tool result`).toBeDefined()
        const data = res!.data as { isError: boolean; result: unknown }
        const text = JSON.stringify(data.result)
        expect(text, `${e.name} ${JSON.stringify(e.args)}`).not.toContain(SECRET_CONTENT)
        if (e.expectError) {
          expect(data.isError, `${e.name} ${JSON.stringify(e.args)}: ${text}`).toBe(true)
          expect(text).toMatch(/outside the workspace|denied|not allowed|is a directory|must not be empty|required|not found|does not exist|invalid/i)
        }
        results.push(`${e.name}:${data.isError ? 'refused' : 'ok'}`)
      }
      // nothing outside changed, no file was planted
      expect(fs.readFileSync(path.join(outsideDir, 'secret.txt'), 'utf8')).toBe(`${SECRET_CONTENT}\n`)
      expect(fs.readdirSync(outsideDir).sort()).toEqual(['secret.txt'])
      expect(fs.lstatSync(path.join(workspace, 'filelink')).isSymbolicLink()).toBe(true)
      console.log(`FAULTS hostile-input workspace: calls=${all.length} ${results.join(' ')}`)
    })

    it('exec of a command reaching outside needs approval; a denial runs nothing', async () => {
      const runId = 'exec-outside'
      const call = c.agent({ message: 'EXEC-OUT', idempotencyKey: runId, sessionKey: 'agent:main:escape-exec' })
      const req = await c.waitEvent((e) => e.event === 'exec.approval.requested' && (e.payload as { runId?: string }).runId === runId, 30_000)
      const id = (req.payload as { id: string }).id
      await c.request('exec.approval.resolve', { id, decision: 'deny' })
      const r = await call.final
      expect(r.ok).toBe(true)
      const res = c.agentEvents(runId).find((ev) => ev.stream === 'tool' && (ev.data as { phase?: string }).phase === 'result')
      expect(res?.data).toMatchObject({ isError: true })
      expect(JSON.stringify(res?.data)).not.toContain(SECRET_CONTENT)
      expect(JSON.stringify(res?.data)).toMatch(/denied/)
    })
  })

  describe('config files with wrong types', () => {
    let c: TestClient
    beforeAll(async () => {
      c = await openClient(gw.url, token)
    })
    afterAll(() => c?.close())

    it('config.patch with bad types is refused naming the path; the file is never written', async () => {
      const before = fs.readFileSync(configFile)
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ agents: { defaults: { timeoutSeconds: 'soon' } } }, 'agents.defaults.timeoutSeconds'],
        [{ gateway: { port: 70000 } }, 'gateway.port'],
        [{ models: { providers: { evil: { baseUrl: 'file:///etc/passwd', api: 'openai-completions' } } } }, 'models.providers.evil.baseUrl'],
        [{ agents: { list: 'everyone' } }, 'agents.list'],
        [{ tools: { exec: { allowlist: [1, 2] } } }, 'tools.exec.allowlist'],
        [{ agents: { defaults: { timeoutSecs: 5 } } }, 'agents.defaults.timeoutSecs'],
        [{ messages: { queue: { mode: 'yolo' } } }, 'messages.queue.mode'],
      ]
      for (const [patch, where] of bad) {
        const err = await c.request('config.patch', { patch }).then(
          () => undefined,
          (e: { code?: string; message: string }) => e,
        )
        expect(err, JSON.stringify(patch)).toBeDefined()
        expect(err!.code).toBe('INVALID_REQUEST')
        expect(err!.message).toContain(where)
        expect(err!.message.length).toBeLessThan(1000)
      }
      expect(fs.readFileSync(configFile).equals(before)).toBe(true)
    })

    it('a hand-broken loopdesk.json keeps the last good config; runs never rewrite it, a patch only when it adds no problem', async () => {
      const broken = fs.readFileSync(configFile, 'utf8').replace('"timeoutSeconds": 120', '"timeoutSeconds": "two minutes"')
      expect(broken).toContain('two minutes')
      fs.writeFileSync(configFile, broken)
      // the gateway notices (it polls the file) and reports the bad path; the last good config stays in force
      const got = await until(async () => {
        const g = await c.request('config.get', {})
        return g.valid === false ? g : undefined
      }, 20_000, 'config.get to report the broken file')
      expect(JSON.stringify(got.issues)).toContain('agents.defaults.timeoutSeconds')
      const r = await c.agent({ message: 'works with the last good config?', idempotencyKey: 'broken-cfg-run', sessionKey: 'agent:main:cfg' }).final
      expect(r.ok).toBe(true)
      // a patch adding a problem is refused; the file is left as the user wrote it
      const err = await c.request('config.patch', { patch: { gateway: { port: 70000 } } }).then(
        () => undefined,
        (e: { code?: string; message: string }) => e,
      )
      expect(err?.code).toBe('INVALID_REQUEST')
      expect(err?.message).toContain('gateway.port')
      expect(err?.message).not.toContain('agents.defaults.timeoutSeconds')
      expect(fs.readFileSync(configFile, 'utf8')).toBe(broken)
      // one that adds none is written (the file stays repairable from the window) but not applied: the bad
      // value is kept as the user wrote it and still reported
      const kept = await c.request('config.patch', { patch: { agents: { defaults: { thinkingDefault: 'low' } } } })
      expect(JSON.stringify(kept.issues)).toContain('agents.defaults.timeoutSeconds')
      expect(JSON.parse(fs.readFileSync(configFile, 'utf8')).agents.defaults).toMatchObject({ timeoutSeconds: 'two minutes', thinkingDefault: 'low' })
      expect((await c.request('config.get', {})).valid).toBe(false)

      // a file that is not even JSON5
      fs.writeFileSync(configFile, '{ this is: not json')
      await until(async () => (await c.request('config.get', {})).issues.some((i: { message: string }) => /JSON|parse|Unexpected|invalid/i.test(i.message)), 20_000, 'parse issue')
      const r2 = await c.agent({ message: 'and now?', idempotencyKey: 'broken-cfg-run-2', sessionKey: 'agent:main:cfg' }).final
      expect(r2.ok).toBe(true)
      expect(fs.readFileSync(configFile, 'utf8')).toBe('{ this is: not json')

      // a restart on the broken file: the gateway starts, reports the problem and leaves the file alone
      await gw.stop()
      gw = await startGatewayChild({ stateDir, token, logs, label: 'hostile-restart' })
      const c2 = await openClient(gw.url, token)
      const g2 = await c2.request('config.get', {})
      expect(g2.valid).toBe(false)
      await c2.close()
      expect(fs.readFileSync(configFile, 'utf8')).toBe('{ this is: not json')
    })
  })

  it('no secret in the gateway output or the state dir', () => {
    expect(findSecrets([token, apiKey], { logs, stateDirs: [stateDir] })).toEqual([])
  })
})
