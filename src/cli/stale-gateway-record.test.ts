// A gateway.json whose process is gone names a port another program may listen on now: the CLI must not
// connect there with the state dir's token (or a device token) on the record's word alone.
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { captureIO } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { infoPath, readGatewayToken, storeGatewayToken, writeGatewayInfo } from '../main/gateway/state-files'
import { runCli } from './main'
import { resolveGatewayTarget } from './resolve'

// above Linux's largest pid_max (2^22): never a live process
const DEAD_PID = 2 ** 22 + 1
const TOKEN = 'stale-record-state-token-0123456789'

describe('a stale gateway.json', () => {
  // whatever listens at the recorded address now: it keeps every frame it is sent
  let squatter: WebSocketServer
  let url: string
  const frames: string[] = []
  let connects = 0
  beforeAll(async () => {
    squatter = new WebSocketServer({ host: '127.0.0.1', port: 0 })
    await new Promise<void>((r) => squatter.once('listening', () => r()))
    url = `ws://127.0.0.1:${(squatter.address() as AddressInfo).port}`
    squatter.on('connection', (ws) => {
      connects++
      ws.on('message', (d) => frames.push(String(d)))
      // say nothing, then hang up: the CLI fails either way, what matters is what it sent
      setTimeout(() => ws.close(), 200)
    })
  })
  afterAll(async () => {
    for (const c of squatter.clients) c.terminate()
    await new Promise((r) => squatter.close(r))
  })

  const staleDir = () => {
    const dir = tempDir('loopdesk-stale-')
    storeGatewayToken(dir, TOKEN)
    writeGatewayInfo(dir, { port: Number(new URL(url).port), pid: DEAD_PID, url, startedAt: Date.now() - 60_000 })
    return dir
  }

  it('resolves to a stale target without a token', () => {
    const dir = staleDir()
    expect(resolveGatewayTarget({}, {}, dir)).toMatchObject({ url, token: undefined, source: 'stale', stalePid: DEAD_PID })
    // a token the user gave is theirs to send: the recorded address is used with it
    expect(resolveGatewayTarget({ token: 'mine' }, {}, dir)).toMatchObject({ url, token: 'mine', source: 'state' })
    expect(resolveGatewayTarget({}, { LOOPDESK_GATEWAY_TOKEN: 'env' }, dir)).toMatchObject({ url, token: 'env', source: 'state' })
  })

  it('commands say the gateway is not running (exit 3) and never connect to the recorded address', async () => {
    const dir = staleDir()
    for (const argv of [['status'], ['gateway', 'call', 'health'], ['dashboard'], ['agent', '-m', 'hi']]) {
      const c = captureIO()
      expect(await runCli([...argv, '--state-dir', dir], c.io), argv.join(' ')).toBe(3)
      expect(c.err()).toContain(`gateway not running (stale record for pid ${DEAD_PID} in ${infoPath(dir)})`)
    }
    expect(connects).toBe(0)
    expect(frames.join('')).not.toContain(TOKEN)
  })

  it('config path names the local file; rotate-token rotates in the state dir and prints no link to that port', async () => {
    const dir = staleDir()
    const p = captureIO()
    expect(await runCli(['config', 'path', '--state-dir', dir], p.io)).toBe(0)
    expect(p.out()).toBe(join(dir, 'loopdesk.json') + '\n')

    const c = captureIO()
    expect(await runCli(['gateway', 'rotate-token', '--state-dir', dir], c.io)).toBe(0)
    expect(c.out()).toBe('')
    expect(c.err()).toBe(
      `gateway not running (stale record for pid ${DEAD_PID}); the new token is stored in ${dir} and applies when the gateway starts (then \`loopdesk dashboard\` prints the link)\n`,
    )
    expect(readGatewayToken(dir)).not.toBe(TOKEN)
    expect(connects).toBe(0)
  })

  it('a token given on the command line goes to the recorded address (the user chose to send it)', async () => {
    const dir = staleDir()
    const c = captureIO()
    expect(await runCli(['status', '--state-dir', dir, '--token', 'given-by-user-0123456789'], c.io)).not.toBe(0)
    expect(connects).toBe(1)
    expect(frames.join('')).not.toContain(TOKEN)
  })
})
