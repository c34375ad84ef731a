import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { storeGatewayToken } from '../main/gateway/state-files'
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../main/gateway/test-support'
import { parseArgs } from './args'
import { identityPath, loadOrCreateDeviceIdentity } from './identity'
import { captureIO } from '../../test/fixtures/cli-io'
import { runCli } from './main'
import { dashboardUrl, resolveGatewayTarget } from './resolve'
import { runBin } from './test-support'
import { tempDir } from '../../test/fixtures/temp-dir'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

let t: TestGateway
let cliState: string

beforeEach(async () => {
  t = await startTestGateway()
  // the CLI's own state dir: where it finds gateway.json + token (here: the test gateway's)
  cliState = t.stateDir
  storeGatewayToken(cliState, TEST_TOKEN)
})
afterEach(async () => {
  await t.stop()
})

describe('argument parsing', () => {
  it('parses flags, aliases, = values and rejects unknown flags', () => {
    const spec = { message: { type: 'string', alias: 'm' }, json: { type: 'boolean' } } as const
    expect(parseArgs(['-m', 'hi', '--json', 'x'], spec)).toEqual({ positionals: ['x'], flags: { message: 'hi', json: true }, lists: {} })
    // a flag that may repeat keeps every value
    expect(parseArgs(['--file', 'a', '-f', 'b', '--file=c'], { file: { type: 'string', alias: 'f', multiple: true } }).lists).toEqual({ file: ['a', 'b', 'c'] })
    expect(parseArgs(['--message=a=b'], spec).flags.message).toBe('a=b')
    expect(() => parseArgs(['--nope'], spec)).toThrow('unknown option --nope')
    expect(() => parseArgs(['--message'], spec)).toThrow('needs a value')
  })
})

describe('gateway target resolution', () => {
  it('flags > env > state files, and the state token never goes to a non-loopback URL', () => {
    expect(resolveGatewayTarget({}, {}, cliState)).toMatchObject({ url: t.gw.url, token: TEST_TOKEN, source: 'state' })
    expect(resolveGatewayTarget({}, { LOOPDESK_GATEWAY_URL: 'ws://127.0.0.1:1', LOOPDESK_GATEWAY_TOKEN: 'envtok' }, cliState)).toMatchObject({
      url: 'ws://127.0.0.1:1',
      token: 'envtok',
      source: 'env',
    })
    expect(resolveGatewayTarget({ url: 'ws://127.0.0.1:2', token: 'flagtok' }, { LOOPDESK_GATEWAY_TOKEN: 'envtok' }, cliState)).toMatchObject({
      url: 'ws://127.0.0.1:2',
      token: 'flagtok',
    })
    expect(resolveGatewayTarget({ url: 'ws://gateway.example:18789' }, {}, cliState).token).toBeUndefined()
    const empty = tempDir('loopdesk-cli-')
    expect(resolveGatewayTarget({}, {}, empty)).toMatchObject({ url: 'ws://127.0.0.1:18789', source: 'default', token: undefined })
  })

  it('dashboard URL carries the token in the fragment', () => {
    expect(dashboardUrl('ws://127.0.0.1:4567', 'a b/c')).toBe('http://127.0.0.1:4567/#token=a%20b%2Fc')
  })
})

describe('device identity file', () => {
  it('is created once with mode 0600 and reused', () => {
    const dir = tempDir('loopdesk-id-')
    const a = loadOrCreateDeviceIdentity(dir)
    expect(statSync(identityPath(dir)).mode & 0o777).toBe(0o600)
    const file = JSON.parse(readFileSync(identityPath(dir), 'utf8'))
    expect(file).toMatchObject({ version: 1, deviceId: a.deviceId })
    expect(file.deviceId).toMatch(/^[0-9a-f]{64}$/)
    expect(loadOrCreateDeviceIdentity(dir).deviceId).toBe(a.deviceId)
  })
})

describe('loopdesk gateway call', () => {
  it('prints the result as JSON', async () => {
    const c = captureIO()
    expect(await runCli(['gateway', 'call', 'health', '--state-dir', cliState, '--json'], c.io)).toBe(0)
    expect(JSON.parse(c.out())).toMatchObject({ ok: true })
    // the CLI connected with its device identity (full scopes): a write method works
    const w = captureIO()
    expect(await runCli(['gateway', 'call', 'chat.abort', '--params', '{"sessionKey":"agent:main:main"}', '--state-dir', cliState], w.io)).toBe(0)
    expect(JSON.parse(w.out())).toEqual({ ok: true, aborted: false, runIds: [] })
  })

  it('--expect-final waits for the agent final', async () => {
    const c = captureIO()
    const params = JSON.stringify({ message: 'hi', idempotencyKey: 'cli-1' })
    expect(await runCli(['gateway', 'call', 'agent', '--params', params, '--expect-final', '--json', '--state-dir', cliState], c.io)).toBe(0)
    expect(JSON.parse(c.out())).toMatchObject({ runId: 'cli-1', status: 'ok', summary: 'completed' })
    const ack = captureIO()
    await runCli(['gateway', 'call', 'agent', '--params', JSON.stringify({ message: 'x', idempotencyKey: 'cli-2' }), '--json', '--state-dir', cliState], ack.io)
    expect(JSON.parse(ack.out())).toMatchObject({ runId: 'cli-2', status: 'accepted' })
  })

  it('method errors: one line on stderr, exit 1', async () => {
    const c = captureIO()
    expect(await runCli(['gateway', 'call', 'nope.method', '--state-dir', cliState], c.io)).toBe(1)
    expect(c.err()).toBe('loopdesk: INVALID_REQUEST: unknown method: nope.method\n')
  })

  it('a gateway URL that is not one is a usage error (exit 2), before connecting', async () => {
    const c = captureIO()
    expect(await runCli(['gateway', 'call', 'health', '--url', 'ws://bad host', '--state-dir', cliState], c.io)).toBe(2)
    expect(c.err()).toBe('loopdesk: gateway URL "ws://bad host" is not a valid URL (see: loopdesk --help)\n')
    // one from the environment is named as such (nothing on the command line shows it)
    const e = captureIO({ LOOPDESK_GATEWAY_URL: 'localhost:18789' })
    expect(await runCli(['gateway', 'call', 'health', '--state-dir', cliState], e.io)).toBe(2)
    expect(e.err()).toBe('loopdesk: LOOPDESK_GATEWAY_URL must start with ws:// or wss:// (got localhost:18789) (see: loopdesk --help)\n')
  })

  it('usage errors exit 2', async () => {
    for (const args of [['gateway', 'call'], ['gateway', 'call', 'health', '--params', '[1]'], ['gateway', 'call', 'health', '--params', '{bad'], ['gateway', 'frob']]) {
      const c = captureIO()
      expect(await runCli([...args, '--state-dir', cliState], c.io), args.join(' ')).toBe(2)
      expect(c.err().split('\n').filter(Boolean)).toHaveLength(1)
    }
  })

  it('gateway not running: exit 3 with a clear line', async () => {
    const c = captureIO()
    const code = await runCli(['gateway', 'call', 'health', '--url', 'ws://127.0.0.1:1', '--token', 'x'.repeat(20)], c.io)
    expect(code).toBe(3)
    expect(c.err()).toMatch(/^loopdesk: gateway not running at ws:\/\/127\.0\.0\.1:1/)
  })

  it('auth failed: exit 4 with a clear line that does not leak the token', async () => {
    const c = captureIO()
    const code = await runCli(['gateway', 'call', 'health', '--state-dir', cliState, '--token', 'wrong-token-1234567890'], c.io)
    expect(code).toBe(4)
    expect(c.err()).toMatch(/^loopdesk: gateway auth failed: .*AUTH_TOKEN_MISMATCH/)
    expect(c.err()).not.toContain('wrong-token-1234567890')
    expect(c.err()).not.toContain(TEST_TOKEN)
  })
})

describe('loopdesk agent (through the gateway)', () => {
  it('streams the reply and exits 0', async () => {
    const c = captureIO()
    expect(await runCli(['agent', '-m', 'hello', '--state-dir', cliState], c.io)).toBe(0)
    expect(c.out()).toBe('Hello, world\n')
    // streamed in pieces (cumulative deltas printed as suffixes)
    expect(c.chunks.length).toBeGreaterThan(2)
    const call = t.host.calls.find((x) => x.method === 'agent')!
    expect(call.params).toMatchObject({ message: 'hello', sessionKey: 'agent:main:main' })
    // no --timeout: none sent, so the gateway's configured run timeout applies
    expect(call.params).not.toHaveProperty('timeout')
  })

  it('passes session selection, thinking and timeout', async () => {
    const c = captureIO()
    expect(await runCli(['agent', '-m', 'x', '--agent', 'ops', '--thinking', 'low', '--timeout', '30', '--state-dir', cliState], c.io)).toBe(0)
    expect(t.host.calls.find((x) => x.method === 'agent')!.params).toMatchObject({ agentId: 'ops', thinking: 'low', timeout: 30 })
    const bad = captureIO()
    expect(await runCli(['agent', '-m', 'x', '--agent', 'a', '--session-id', 'b', '--state-dir', cliState], bad.io)).toBe(2)
    expect(await runCli(['agent', '-m', 'x', '--thinking', 'max', '--state-dir', cliState], captureIO().io)).toBe(2)
    expect(await runCli(['agent', '--state-dir', cliState], captureIO().io)).toBe(2)
  })

  it('--json prints the final payload', async () => {
    const c = captureIO()
    expect(await runCli(['agent', '-m', 'hello', '--json', '--state-dir', cliState], c.io)).toBe(0)
    expect(JSON.parse(c.out())).toMatchObject({ status: 'ok', result: { payloads: [{ text: 'Hello, world' }] } })
  })

  it('a failed run exits 1 with the error', async () => {
    const c = captureIO()
    expect(await runCli(['agent', '-m', 'fail-run', '--state-dir', cliState], c.io)).toBe(1)
    expect(c.err()).toContain('error: LLM request failed.')
  })

  it('Ctrl-C aborts the run via chat.abort and exits 130', async () => {
    await t.stop()
    t = await startTestGateway({ hold: true })
    storeGatewayToken(t.stateDir, TEST_TOKEN)
    const c = captureIO()
    const done = runCli(['agent', '-m', 'long', '--state-dir', t.stateDir], c.io)
    const start = Date.now()
    while (!c.out().includes('Hello') && Date.now() - start < 3000) await new Promise((r) => setTimeout(r, 10))
    c.signal('SIGINT')
    expect(await done).toBe(130)
    expect(t.host.calls.some((x) => x.method === 'chat.abort')).toBe(true)
    expect(c.err()).toContain('run stopped')
  })
})

describe('loopdesk dashboard', () => {
  it('prints the browser URL with the token fragment', async () => {
    const c = captureIO()
    expect(await runCli(['dashboard', '--state-dir', cliState], c.io)).toBe(0)
    expect(c.out()).toBe(`http://127.0.0.1:${t.gw.port}/#token=${TEST_TOKEN}\n`)
  })

  it('a token the gateway refuses is an auth error (exit 4), not a link that cannot log in', async () => {
    const c = captureIO()
    expect(await runCli(['dashboard', '--url', t.gw.url, '--token', 'wrong-token-0123456789', '--state-dir', cliState], c.io)).toBe(4)
    expect(c.out()).toBe('')
    expect(c.err()).toMatch(/^loopdesk: gateway auth failed: .*\[AUTH_TOKEN_MISMATCH\]/)
  })

  it('says when the gateway is not running', async () => {
    const c = captureIO()
    expect(await runCli(['dashboard', '--url', 'ws://127.0.0.1:1', '--token', 'x'.repeat(20)], c.io)).toBe(3)
    expect(c.err()).toMatch(/gateway not running/)
    // a state dir no gateway ever ran with: that, not a missing token (exit 3 like any unreachable gateway)
    const empty = tempDir('loopdesk-cli-dash-empty-')
    const e = captureIO()
    expect(await runCli(['dashboard', '--state-dir', empty], e.io)).toBe(3)
    expect(e.err()).toBe(`loopdesk: no gateway has run with the state dir ${empty} (start one with: loopdesk gateway run), or pass --url and --token\n`)
  })
})

describe('bin/loopdesk.mjs', () => {
  const run = runBin

  it('runs `gateway call health` as a real process (env-provided URL and token)', async () => {
    const r = await run(['gateway', 'call', 'health', '--json', '--state-dir', tempDir('loopdesk-bin-')], {
      LOOPDESK_GATEWAY_URL: t.gw.url,
      LOOPDESK_GATEWAY_TOKEN: TEST_TOKEN,
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true })
  })

  it('exits non-zero with one line when the gateway is down', async () => {
    const r = await run(['gateway', 'call', 'health', '--url', 'ws://127.0.0.1:1', '--token', 'x'.repeat(20)])
    expect(r.code).toBe(3)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })

  it('runs from a bundle cached under node_modules (built once per source state), else through tsx', async () => {
    const cache = join(ROOT, 'node_modules', '.cache', `loopdesk-test-${process.pid}`)
    try {
      const down = ['gateway', 'call', 'health', '--url', 'ws://127.0.0.1:1', '--token', 'x'.repeat(20)]
      const first = await run(down, { LOOPDESK_CLI_CACHE: cache })
      expect([first.code, first.stderr]).toEqual([3, expect.stringMatching(/^loopdesk: gateway not running/)])
      const built = readdirSync(cache).filter((d) => /^cli-[0-9a-f]+$/.test(d))
      expect(built).toHaveLength(1)
      const entry = join(cache, built[0], 'main.mjs')
      const mtime = statSync(entry).mtimeMs
      // a stale bundle from other sources is dropped when the current one is built; the current one is reused
      mkdirSync(join(cache, 'cli-0123456789abcdef'))
      rmSync(join(cache, built[0]), { recursive: true })
      expect((await run(down, { LOOPDESK_CLI_CACHE: cache })).code).toBe(3)
      expect(readdirSync(cache)).toEqual(built)
      const again = statSync(entry).mtimeMs
      expect((await run(['--version'], { LOOPDESK_CLI_CACHE: cache })).code).toBe(0)
      expect(statSync(entry).mtimeMs).toBe(again)
      expect(again).toBeGreaterThanOrEqual(mtime)
      // no bundle possible (the cache path is under a file): the sources through tsx, same result
      const blocked = join(cache, built[0], 'main.mjs', 'x')
      const viaTsx = await run(down, { LOOPDESK_CLI_CACHE: blocked })
      expect([viaTsx.code, viaTsx.stderr]).toEqual([first.code, first.stderr])
      const forced = await run(down, { LOOPDESK_CLI_TSX: '1' })
      expect([forced.code, forced.stderr]).toEqual([first.code, first.stderr])
    } finally {
      rmSync(cache, { recursive: true, force: true })
    }
  }, 120_000)
})

describe('gateway config file', () => {
  it('reads port, bind, origins and auth.token by the runtime\'s rules (JSON5, validated); an invalid file gives nothing but why', async () => {
    const { readGatewayConfig } = await import('./resolve')
    const { writeFileSync } = await import('node:fs')
    const dir = tempDir('loopdesk-cfg-')
    writeFileSync(join(dir, 'loopdesk.json'), `{ // json5
      gateway: { port: 19999, bind: 'lan', allowedOrigins: ['http://a:1'], auth: { token: ' cfg-token-1234567890 ' } }, }`)
    expect(readGatewayConfig(dir)).toEqual({ port: 19999, bind: 'lan', allowedOrigins: ['http://a:1'], token: 'cfg-token-1234567890' })
    // the runtime refuses this file as a whole, so the CLI takes none of it (not even the valid port)
    writeFileSync(join(dir, 'loopdesk.json'), '{ gateway: { port: 19999, bind: "everywhere" } }')
    const bad = readGatewayConfig(dir)
    expect(bad.port).toBeUndefined()
    expect(bad.bind).toBeUndefined()
    expect(bad.problem).toMatch(/loopdesk\.json is invalid \(gateway\.bind: must be one of "loopback", "lan", "all"\)/)
    writeFileSync(join(dir, 'loopdesk.json'), '{ gateway: { port: 70000, allowedOrigins: [7] } }')
    expect(readGatewayConfig(dir).problem).toMatch(/is invalid \(gateway\.\S+: .*, and 1 more\)/)
    writeFileSync(join(dir, 'loopdesk.json'), '{ gateway: ')
    expect(readGatewayConfig(dir).problem).toMatch(/is invalid \(\(file\): syntax error/)
    expect(readGatewayConfig(join(dir, 'missing'))).toEqual({})
  })
})
