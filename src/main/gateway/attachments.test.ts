// Message attachments end to end: a real WebSocket client → gateway → real runtime → real pi-ai client →
// scripted model server, whose captured REQUEST bodies show what reached the model. Params are checked
// against @openclaw/gateway-protocol's own schema.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Ajv from 'ajv'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type CapturedRequest, type ModelServer } from '../../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../../test/fixtures/test-runtime'
import { until } from '../../../test/fixtures/until'
import { connectGateway } from '../../cli/gateway-client'
import { generateNodeDeviceIdentity } from '../../cli/identity'
import { ATTACHMENT_LIMITS, base64Length } from '../../shared/attachments'
import { LIMITS } from './protocol'
import { startGateway, type GatewayHandle } from './server'

const schemaFile = fileURLToPath(new URL('../../../node_modules/@openclaw/gateway-protocol/protocol.schema.json', import.meta.url))
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false })
ajv.addSchema(JSON.parse(fs.readFileSync(schemaFile, 'utf8')), 'openclaw')
function conforms(name: string, value: unknown): void {
  const v = ajv.getSchema(`openclaw#/definitions/${name}`)
  if (!v) throw new Error(`no ${name} in the package schema`)
  const ok = v(value)
  expect(ok ? [] : v.errors, name).toEqual([])
}

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64')
const PNG_B64 = PNG.toString('base64')
const TOKEN = 'attachments-token-0123456789'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle
const identity = generateNodeDeviceIdentity()
const connect = (maxProtocol = 4) => connectGateway({ url: gw.url, token: TOKEN, identity, maxProtocol })
const inbound = () => path.join(rt.stateDir, 'media', 'inbound')
const savedFiles = () => (fs.existsSync(inbound()) ? fs.readdirSync(inbound()) : [])

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  const base = testConfig(server)
  const config = testConfig(server, {
    models: {
      providers: {
        ...base.models!.providers,
        vis: { baseUrl: server.openaiBaseUrl, api: 'openai-completions', models: [{ id: 'v1', input: ['text', 'image'], contextWindow: 32000, maxTokens: 1024 }] },
        visant: { baseUrl: server.anthropicBaseUrl, api: 'anthropic-messages', models: [{ id: 'c1', input: ['text', 'image'], contextWindow: 32000, maxTokens: 1024 }] },
      },
    },
    agents: { defaults: { model: { primary: 'vis/v1' } }, list: [{ id: 'main', default: true }, { id: 'ant', model: 'visant/c1' }, { id: 'txt', model: 'mock/m1' }] },
  })
  rt = await startTestRuntime(server, { config })
  gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
})
afterAll(async () => {
  await gw?.close()
  await rt?.close()
  await server?.close()
})

/** the content parts of the last user message of an OpenAI request */
function lastUserParts(r: CapturedRequest): Array<{ type: string; text?: string; image_url?: { url: string } }> {
  const users = (r.body.messages as Array<{ role: string; content: unknown }>).filter((m) => m.role === 'user')
  const c = users.at(-1)!.content
  return typeof c === 'string' ? [{ type: 'text', text: c }] : (c as never)
}
const allText = (r: CapturedRequest) => JSON.stringify(r.body)

async function failure(p: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await p
  } catch (err) {
    return err as { code?: string; message: string }
  }
  throw new Error('expected the request to fail')
}

describe('attachments over the gateway', () => {
  it('hello-ok v4 advertises policy.attachments; v3 does not', async () => {
    const c4 = await connect(4)
    expect(c4.hello.policy.attachments).toEqual({ maxBytes: ATTACHMENT_LIMITS.maxBytes, maxImageBytes: ATTACHMENT_LIMITS.maxImageBytes })
    expect(c4.hello.policy.attachments).toEqual({ maxBytes: 18 * 1024 * 1024, maxImageBytes: 6 * 1024 * 1024 })
    await c4.close()
    const c3 = await connect(3)
    expect(c3.hello.policy.attachments).toBeUndefined()
    await c3.close()
  })

  it('agent: the image reaches the model as an image_url data URL; a text file is saved 0600 and referenced by path', async () => {
    const c = await connect()
    const before = server.requests.length
    const params = {
      message: 'what is in these?',
      sessionKey: 'agent:main:att1',
      idempotencyKey: 'att-1',
      attachments: [
        { type: 'image', mimeType: 'image/png', fileName: 'dot.png', content: PNG_B64 },
        { type: 'file', mimeType: 'text/plain', fileName: '../../notes.txt', content: Buffer.from('secret notes').toString('base64') },
      ],
    }
    conforms('AgentParams', params)
    const final = (await c.request('agent', params, { expectFinal: true })) as any
    expect(final.status).toBe('ok')
    const req = server.requests[before]
    const parts = lastUserParts(req)
    expect(parts.filter((p) => p.type === 'image_url').map((p) => p.image_url!.url)).toEqual([`data:image/png;base64,${PNG_B64}`])
    const text = parts.filter((p) => p.type === 'text').map((p) => p.text).join('\n')
    expect(text.startsWith('what is in these?')).toBe(true)
    const fileLine = /\[File attached: notes\.txt \(text\/plain, 12 bytes\) saved at (\S+)\]/.exec(text)
    expect(fileLine).not.toBeNull()
    const filePath = fileLine![1]
    expect(path.dirname(filePath)).toBe(inbound())
    expect(fs.readFileSync(filePath, 'utf8')).toBe('secret notes')
    expect(fs.statSync(filePath).mode & 0o777).toBe(0o600)
    expect(fs.statSync(inbound()).mode & 0o777).toBe(0o700)

    // the transcript keeps a path reference, never the base64; chat.history shows it
    const hist = (await c.request('chat.history', { sessionKey: 'agent:main:att1' })) as any
    const user = hist.messages.find((m: any) => m.role === 'user')
    const userJson = JSON.stringify(user)
    expect(userJson).not.toContain(PNG_B64)
    expect(userJson).toMatch(/\[image: \S+\.png \(image\/png\)\]/)
    const entry = rt.runtime.core.store('main').get('agent:main:att1')!
    const jsonl = fs.readFileSync(rt.runtime.core.store('main').transcriptPath(entry.sessionId), 'utf8')
    expect(jsonl).not.toContain(PNG_B64)
    await c.close()
  })

  it('anthropic-compatible model: the image is a base64 image block', async () => {
    const c = await connect()
    const before = server.requests.length
    await c.request(
      'agent',
      { message: 'see', agentId: 'ant', idempotencyKey: 'att-ant', attachments: [{ source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } }] },
      { expectFinal: true },
    )
    const req = server.requests[before]
    expect(req.api).toBe('anthropic')
    const users = (req.body.messages as Array<{ role: string; content: any[] }>).filter((m) => m.role === 'user')
    expect(users.at(-1)!.content).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } })]),
    )
    await c.close()
  })

  it('a text-only model gets the image by reference only (no image part)', async () => {
    const c = await connect()
    const before = server.requests.length
    await c.request('agent', { message: 'see', agentId: 'txt', idempotencyKey: 'att-txt', attachments: [{ content: PNG_B64 }] }, { expectFinal: true })
    const req = server.requests[before]
    expect(allText(req)).not.toContain(PNG_B64)
    expect(allText(req)).toMatch(/\[Image attached: attachment-1\.png \(image\/png, \d+ bytes\) saved at /)
    await c.close()
  })

  it('sessions.create: attachments go with the first message; without one, or bad ones, nothing is created', async () => {
    const c = await connect()
    const before = server.requests.length
    const params = {
      key: 'agent:main:att-create',
      message: 'what is in this picture?',
      idempotencyKey: 'att-create-1',
      category: '  Research  ',
      attachments: [{ mimeType: 'image/png', fileName: 'dot.png', content: PNG_B64 }],
    }
    conforms('SessionsCreateParams', params)
    const res = (await c.request('sessions.create', params)) as any
    expect(res).toMatchObject({ ok: true, key: 'agent:main:att-create', runStarted: true, runId: 'att-create-1', entry: { category: 'Research' } })
    conforms('SessionsCreateResult', res)
    await expect(c.request('agent.wait', { runId: 'att-create-1', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    const parts = lastUserParts(server.requests[before])
    expect(parts.filter((p) => p.type === 'image_url').map((p) => p.image_url!.url)).toEqual([`data:image/png;base64,${PNG_B64}`])
    expect(parts.some((p) => p.text?.includes('what is in this picture?'))).toBe(true)
    // an attachment-only first message: message may be empty, as with chat.send
    const only = (await c.request('sessions.create', { key: 'agent:main:att-create2', message: '', attachments: [{ mimeType: 'image/png', content: PNG_B64 }] })) as any
    expect(only).toMatchObject({ runStarted: true })
    await expect(c.request('agent.wait', { runId: only.runId, timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })

    const files = savedFiles().length
    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ key: 'agent:main:att-nomsg', attachments: [{ mimeType: 'image/png', content: PNG_B64 }] }, 'attachments go with a first message'],
      [{ key: 'agent:main:att-bad', message: 'x', attachments: [{ mimeType: 'image/png', content: '%%% not base64 %%%' }] }, 'attachments[0]'],
      [{ key: 'agent:main:att-many', message: 'x', attachments: Array.from({ length: 33 }, () => ({ mimeType: 'image/png', content: PNG_B64 })) }, 'attachments'],
      [{ key: 'agent:main:att-cat', category: '   ' }, 'invalid category: empty'],
    ]
    for (const [p, msg] of refusals) {
      expect(await failure(c.request('sessions.create', p)), JSON.stringify(p).slice(0, 80)).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining(msg) })
    }
    const listed = (await c.request('sessions.list', { search: 'att-' })) as any
    expect(listed.sessions.map((r: any) => r.key).sort()).toEqual(['agent:main:att-create', 'agent:main:att-create2'])
    expect(savedFiles().length).toBe(files) // refused attachments were never written
    // an existing session keeps its category
    const again = (await c.request('sessions.create', { key: 'agent:main:att-create', category: 'Other' })) as any
    expect(again.entry.category).toBe('Research')
    await c.close()
  })

  it('chat.send with only an attachment and an empty message runs; sessions.send carries attachments too', async () => {
    const c = await connect()
    let before = server.requests.length
    const params = { sessionKey: 'agent:main:att2', message: '', idempotencyKey: 'att-2', attachments: [{ mimeType: 'image/png', content: PNG_B64 }] }
    conforms('ChatSendParams', params)
    expect(await c.request('chat.send', params)).toMatchObject({ runId: 'att-2', status: 'started' })
    await expect(c.request('agent.wait', { runId: 'att-2', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    expect(lastUserParts(server.requests[before]).some((p) => p.type === 'image_url')).toBe(true)

    // neither message nor attachment: refused
    const err = await failure(c.request('chat.send', { sessionKey: 'agent:main:att2', message: ' ', idempotencyKey: 'att-2b', attachments: [{ type: 'image' }] }))
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', message: 'message or attachment required' })

    before = server.requests.length
    const sp = { key: 'agent:main:att2', message: 'and this', idempotencyKey: 'att-3', attachments: [{ mimeType: 'image/png', content: PNG_B64 }] }
    conforms('SessionsSendParams', sp)
    await c.request('sessions.send', sp)
    await expect(c.request('agent.wait', { runId: 'att-3', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    const parts = lastUserParts(server.requests[before])
    expect(parts.filter((p) => p.type === 'image_url')).toHaveLength(1)
    // the earlier turn's image is in the history as its path reference, not as bytes
    expect(JSON.stringify(server.requests[before].body).split(PNG_B64).length - 1).toBe(1)
    await c.close()
  })

  it('an oversize image is INVALID_REQUEST with the limit; nothing is saved and nothing runs', async () => {
    const c = await connect()
    const files = savedFiles().length
    const before = server.requests.length
    const big = Buffer.concat([PNG, Buffer.alloc(ATTACHMENT_LIMITS.maxImageBytes)]).toString('base64')
    const err = await failure(
      c.request('chat.send', { sessionKey: 'agent:main:att4', message: 'big', idempotencyKey: 'att-4', attachments: [{ fileName: 'big.png', content: big }] }),
    )
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('6 MB image limit') })
    const err2 = await failure(c.request('agent', { message: '', sessionKey: 'agent:main:att4', idempotencyKey: 'att-5', attachments: [{ content: '!!' }] }))
    expect(err2).toMatchObject({ code: 'INVALID_REQUEST', message: 'attachments[0]: content is not valid base64' })
    await new Promise((r) => setTimeout(r, 100))
    expect(savedFiles().length).toBe(files)
    expect(server.requests.length).toBe(before)
    expect(rt.runtime.core.store('main').get('agent:main:att4')).toBeUndefined()
    await c.close()
  })

  it('an attachment of exactly maxBytes fits in one frame and is accepted; one byte more is INVALID_REQUEST naming the limit', async () => {
    // the limit is the largest whole MiB whose base64 fits in one post-handshake frame with room for the rest
    expect(base64Length(ATTACHMENT_LIMITS.maxBytes) + 64 * 1024).toBeLessThanOrEqual(LIMITS.maxPayload)
    expect(base64Length(ATTACHMENT_LIMITS.maxBytes + 1024 * 1024)).toBeGreaterThan(LIMITS.maxPayload)
    const c = await connect()
    const key = 'agent:main:att-max'
    const fileName = `${'n'.repeat(190)}.txt`
    const content = Buffer.alloc(ATTACHMENT_LIMITS.maxBytes, 0x61).toString('base64')
    const params = { sessionKey: key, message: 'the biggest file there may be', idempotencyKey: 'att-max', attachments: [{ type: 'file', mimeType: 'text/plain', fileName, content }] }
    const frameBytes = Buffer.byteLength(JSON.stringify({ type: 'req', id: '999999', method: 'chat.send', params }))
    expect(frameBytes).toBeGreaterThan(24 * 1024 * 1024)
    expect(frameBytes).toBeLessThanOrEqual(LIMITS.maxPayload)
    const before = server.requests.length
    expect(await c.request('chat.send', params, { timeoutMs: 30_000 })).toMatchObject({ runId: 'att-max', status: 'started' })
    await expect(c.request('agent.wait', { runId: 'att-max', timeoutMs: 20_000 })).resolves.toMatchObject({ status: 'ok' })
    const line = /\[File attached: n+\.txt \(text\/plain, (\d+) bytes\) saved at ([^\]\s]+)\]/.exec(allText(server.requests[before]))
    expect(Number(line![1])).toBe(ATTACHMENT_LIMITS.maxBytes)
    expect(fs.statSync(line![2]).size).toBe(ATTACHMENT_LIMITS.maxBytes)
    fs.rmSync(line![2])

    // one byte over: still one frame, so the runtime answers (the socket is not closed) with the limit
    const files = savedFiles().length
    const over = Buffer.alloc(ATTACHMENT_LIMITS.maxBytes + 1, 0x61).toString('base64')
    const err = await failure(
      c.request('chat.send', { sessionKey: key, message: 'too big', idempotencyKey: 'att-over', attachments: [{ type: 'file', fileName: 'over.txt', content: over }] }, { timeoutMs: 30_000 }),
    )
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', message: 'attachments[0] (over.txt) is larger than the 18 MB attachment limit' })
    expect(savedFiles().length).toBe(files)
    await expect(c.request('health', {})).resolves.toMatchObject({ ok: true })
    await c.close()
  }, 60_000)

  it('steer into an active run: the image cannot be injected, its saved path is; followup carries the image', async () => {
    const c = await connect()
    const key = 'agent:main:att5'
    const before = server.requests.length
    server.push({ toolCalls: [{ name: 'ls', args: { path: '.' } }], delayMs: 150, chunks: 2 }, { text: 'after steer' })
    await c.request('chat.send', { sessionKey: key, message: 'list files', idempotencyKey: 'att-s1' })
    await until(() => server.requests.length === before + 1, 8000)
    const r = (await c.request('chat.send', {
      sessionKey: key,
      message: 'and look at this',
      idempotencyKey: 'att-s2',
      queueMode: 'steer',
      attachments: [{ mimeType: 'image/png', fileName: 'shot.png', content: PNG_B64 }],
    })) as any
    expect(r).toMatchObject({ status: 'steered', runId: 'att-s1' })
    await expect(c.request('agent.wait', { runId: 'att-s1', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    const second = server.requests[before + 1]
    const body = JSON.stringify(second.body)
    expect(body).not.toContain(PNG_B64)
    expect(body).toMatch(/and look at this\\n\\n\[Image attached: shot\.png \(image\/png, \d+ bytes\) saved at \S+\.png\]/)

    // followup: queued behind a busy run, it still carries the image when it runs
    const b2 = server.requests.length
    server.push({ text: 'slow', delayMs: 100, chunks: 3 }, { text: 'followed' })
    await c.request('chat.send', { sessionKey: key, message: 'busy', idempotencyKey: 'att-f1' })
    const q = (await c.request('chat.send', { sessionKey: key, message: 'later', idempotencyKey: 'att-f2', queueMode: 'followup', attachments: [{ content: PNG_B64 }] })) as any
    expect(q.status).toBe('queued')
    // accepted = on disk: the journal record names the saved file, the text references it (crash recovery keeps both)
    const journal = rt.runtime.core.accepted('main').file
    const rec = fs
      .readFileSync(journal, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.op === 'accept' && l.runId === 'att-f2')
    expect(rec.media).toHaveLength(1)
    expect(fs.statSync(rec.media[0]).mode & 0o777).toBe(0o600)
    expect(rec.text).toContain(`saved at ${rec.media[0]}]`)
    await expect(c.request('agent.wait', { runId: 'att-f2', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    const third = server.requests.slice(b2).find((x) => JSON.stringify(x.body).includes('later'))!
    expect(lastUserParts(third).filter((p) => p.type === 'image_url')).toHaveLength(1)
    await c.close()
  })
  it('collect: the batch run carries the images of every collected message', async () => {
    const c = await connect()
    const key = 'agent:main:att6'
    const before = server.requests.length
    server.push({ text: 'slow', delayMs: 100, chunks: 3 }, { text: 'batch' })
    await c.request('chat.send', { sessionKey: key, message: 'busy', idempotencyKey: 'att-c1' })
    const img = [{ mimeType: 'image/png', content: PNG_B64 }]
    await c.request('chat.send', { sessionKey: key, message: 'one', idempotencyKey: 'att-c2', queueMode: 'collect', attachments: img })
    await c.request('chat.send', { sessionKey: key, message: 'two', idempotencyKey: 'att-c3', queueMode: 'collect', attachments: img })
    await expect(c.request('agent.wait', { runId: 'att-c3', timeoutMs: 10_000 })).resolves.toMatchObject({ status: 'ok' })
    const batch = server.requests.slice(before).filter((x) => JSON.stringify(x.body).includes('Queued #2'))
    expect(batch).toHaveLength(1)
    expect(lastUserParts(batch[0]).filter((p) => p.type === 'image_url')).toHaveLength(2)
    await c.close()
  })
})
