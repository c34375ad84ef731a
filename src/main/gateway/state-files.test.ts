import { describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { listenWithFallback, PortInUseError } from './listen'
import { ensureGatewayToken, pidAlive, readGatewayInfo, removeGatewayInfo, storeGatewayToken, tokenPath, writeFileAtomic, writeGatewayInfo } from './state-files'
import { FakeHost } from './fake-host'
import { startGateway } from './server'
import { startTestGateway, TEST_TOKEN } from './test-support'
import { processStartTime } from '../runtime/sessions/process-info'
import { tempDir } from '../../../test/fixtures/temp-dir'

const tmp = () => tempDir('loopdesk-state-')

describe('gateway token', () => {
  it('is generated once with mode 0600 and reused', () => {
    const dir = tmp()
    const a = ensureGatewayToken(dir)
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(statSync(tokenPath(dir)).mode & 0o777).toBe(0o600)
    expect(statSync(join(dir, 'gateway')).mode & 0o777).toBe(0o700)
    expect(ensureGatewayToken(dir)).toBe(a)
  })

  it('tightens loose permissions and replaces an unusable token', () => {
    const dir = tmp()
    const a = ensureGatewayToken(dir)
    chmodSync(tokenPath(dir), 0o644)
    expect(ensureGatewayToken(dir)).toBe(a)
    expect(statSync(tokenPath(dir)).mode & 0o777).toBe(0o600)
    writeFileSync(tokenPath(dir), 'short')
    const b = ensureGatewayToken(dir)
    expect(b).not.toBe('short')
    expect(b).toHaveLength(43)
  })

  it('stores an explicit token and rejects weak ones', () => {
    const dir = tmp()
    storeGatewayToken(dir, 'my-explicit-token-123')
    expect(ensureGatewayToken(dir)).toBe('my-explicit-token-123')
    expect(() => storeGatewayToken(dir, 'short')).toThrow(/16/)
  })
})

describe('gateway.json', () => {
  it('records and removes only its own entry', () => {
    const dir = tmp()
    writeGatewayInfo(dir, { port: 1234, pid: process.pid, url: 'ws://127.0.0.1:1234', startedAt: 1 })
    expect(readGatewayInfo(dir)).toEqual({ port: 1234, pid: process.pid, url: 'ws://127.0.0.1:1234', startedAt: 1 })
    removeGatewayInfo(dir, process.pid + 1)
    expect(readGatewayInfo(dir)).toBeDefined()
    removeGatewayInfo(dir, process.pid)
    expect(readGatewayInfo(dir)).toBeUndefined()
  })

  it('names what started the gateway (the desktop app names it in its in-use question); other values are dropped', async () => {
    const dir = tmp()
    const gw = await startGateway({ host: new FakeHost(), port: 0, token: TEST_TOKEN, stateDir: dir, staticDir: null, launchedBy: 'cli' })
    try {
      expect(readGatewayInfo(dir)).toMatchObject({ pid: process.pid, port: gw.port, launchedBy: 'cli' })
    } finally {
      await gw.close()
    }
    writeFileSync(join(dir, 'gateway', 'gateway.json'), JSON.stringify({ port: 1, pid: 2, url: 'ws://127.0.0.1:1', startedAt: 3, launchedBy: 'robot' }))
    expect(readGatewayInfo(dir)).toEqual({ port: 1, pid: 2, url: 'ws://127.0.0.1:1', startedAt: 3 })
  })

  it('a gateway that replaced a live one’s record puts it back when it stops (two gateways on one state dir)', async () => {
    const dir = tmp()
    // another process's gateway already recorded here, still running
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
    try {
      const first = { port: 1, pid: other.pid!, url: 'ws://127.0.0.1:1', startedAt: Date.now(), pidStart: processStartTime(other.pid!) }
      writeGatewayInfo(dir, first)
      const gw = await startGateway({ host: new FakeHost(), port: 0, token: TEST_TOKEN, stateDir: dir, staticDir: null })
      expect(readGatewayInfo(dir)).toMatchObject({ pid: process.pid, port: gw.port })
      await gw.close()
      expect(readGatewayInfo(dir)).toEqual(first)
      // a dead one's record is not brought back
      const again = await startGateway({ host: new FakeHost(), port: 0, token: TEST_TOKEN, stateDir: dir, staticDir: null })
      other.kill('SIGKILL')
      await new Promise((r) => other.once('exit', r))
      await again.close()
      expect(readGatewayInfo(dir)).toBeUndefined()
    } finally {
      other.kill('SIGKILL')
    }
  })

  it('is written by startGateway with the real port and removed on close', async () => {
    const t = await startTestGateway()
    const info = readGatewayInfo(t.stateDir)
    expect(info).toMatchObject({ port: t.gw.port, pid: process.pid, url: t.gw.url })
    const dir = t.stateDir
    await t.gw.close()
    expect(readGatewayInfo(dir)).toBeUndefined()
  })

  it('pidAlive', () => {
    expect(pidAlive(process.pid)).toBe(true)
    expect(pidAlive(2 ** 22 + 12345)).toBe(false)
    expect(pidAlive(-1)).toBe(false)
  })
})

describe('listenWithFallback', () => {
  it('fails with PortInUseError without fallback and picks a free port with it', async () => {
    const a = createServer()
    const { port } = await listenWithFallback(a, { port: 0, host: '127.0.0.1', fallback: false })
    const b = createServer()
    await expect(listenWithFallback(b, { port, host: '127.0.0.1', fallback: false })).rejects.toBeInstanceOf(PortInUseError)
    const c = createServer()
    const r = await listenWithFallback(c, { port, host: '127.0.0.1', fallback: true })
    expect(r.fellBack).toBe(true)
    expect(r.port).not.toBe(port)
    await Promise.all([a, c].map((s) => new Promise((res) => s.close(res))))
  })

  it('startGateway with portFallback records the port actually bound', async () => {
    const first = await startTestGateway()
    const second = await startTestGateway({}, { port: first.gw.port, portFallback: true })
    expect(second.gw.fellBack).toBe(true)
    expect(readGatewayInfo(second.stateDir)?.port).toBe(second.gw.port)
    await expect(startTestGateway({}, { port: first.gw.port })).rejects.toBeInstanceOf(PortInUseError)
    await Promise.all([first.stop(), second.stop()])
  })

  it('refuses to start without a token', async () => {
    await expect(startTestGateway({}, { token: '' })).rejects.toThrow(/token/)
  })
})

describe('writeFileAtomic (token, devices, the CLI identity)', () => {
  it('leaves no temp file behind when the write fails, and narrows an existing file to the mode asked', () => {
    const dir = tmp()
    // a folder where the file should go: the rename fails as a full disk's write would
    mkdirSync(join(dir, 'taken'))
    expect(() => writeFileAtomic(join(dir, 'taken'), 'x', 0o600)).toThrow()
    expect(readdirSync(dir)).toEqual(['taken'])
    const file = join(dir, 'secret')
    writeFileSync(file, 'old', { mode: 0o644 })
    chmodSync(file, 0o644)
    writeFileAtomic(file, 'new', 0o600)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).toBe('new')
  })
})
