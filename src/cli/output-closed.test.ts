// The reader of the CLI's output goes away (`loopdesk agent -m … | head -1`, `loopdesk sessions | head -3`):
// the CLI stops writing, stops what it followed as Ctrl-C does (`agent`: the run), and exits 141 — what a shell
// reports for `git log | head` — quietly. It used to exit 0 at the first failed write while its run went on in
// the gateway for nobody.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { startTestRuntime, testConfig, type TestRuntime } from '../../test/fixtures/test-runtime'
import { tempDir } from '../../test/fixtures/temp-dir'
import { until } from '../../test/fixtures/until'
import { startGateway, type GatewayHandle } from '../main/gateway/server'
import { BIN } from './test-support'

const TOKEN = 'output-closed-token-0123456789abcdef'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle
beforeAll(async () => {
  server = await startModelServer()
  rt = await startTestRuntime(server)
  gw = await startGateway({ host: rt.runtime, port: 0, token: TOKEN, stateDir: rt.stateDir, staticDir: null })
})
afterAll(async () => {
  await gw?.close()
  await rt?.close()
  await server?.close()
})

/**
 * The CLI as a process whose stdout reader goes away: at once (`closeAfter` 0 bytes), or once that much output
 * arrived — as `head` exits once it has its lines.
 */
function cutCli(args: string[], closeAfter = 0, target = ['--url', gw.url, '--state-dir', tempDir('loopdesk-cut-')]) {
  const child = spawn(process.execPath, [BIN, ...args, ...target], {
    env: { ...process.env, LOOPDESK_GATEWAY_TOKEN: TOKEN },
  })
  let stdout = ''
  let stderr = ''
  if (closeAfter === 0) child.stdout.destroy()
  else
    child.stdout.on('data', (d) => {
      stdout += d
      if (stdout.length >= closeAfter) child.stdout.destroy()
    })
  child.stderr.on('data', (d) => (stderr += d))
  const done = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
  return { done, out: () => stdout, err: () => stderr }
}

describe('the reader of the output goes away', () => {
  it('agent | head: the run is stopped in the gateway, stderr says why, exit 141', async () => {
    server.push({ textChunks: Array.from({ length: 300 }, (_, i) => `w${i} `), firstDelayMs: 0, delayMs: 100 })
    const a = cutCli(['agent', '-m', 'go', '--session-key', 'agent:main:cut'], 1)
    const code = await a.done
    expect(code, a.err()).toBe(141)
    expect(a.err()).toContain('loopdesk: the output was closed; stopping the run…')
    // the run ended aborted — not streaming on for 30 s to nobody
    const state = await until(() => {
      for (const e of rt.events) {
        if (e.event === 'chat' && e.payload.sessionKey === 'agent:main:cut' && (e.payload.state === 'aborted' || e.payload.state === 'final')) return e.payload.state
      }
      return undefined
    }, 20_000, 'the run to end')
    expect(state).toBe('aborted')
  }, 60_000)

  it('agent --local | head: the embedded run is stopped too, exit 141', async () => {
    const state = tempDir('loopdesk-cut-local-')
    fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(server)))
    server.push({ textChunks: Array.from({ length: 300 }, (_, i) => `w${i} `), firstDelayMs: 0, delayMs: 100 })
    const a = cutCli(['agent', '--local', '-m', 'go'], 1, ['--state-dir', state])
    expect(await a.done, a.err()).toBe(141)
    expect(a.err()).toContain('loopdesk: the output was closed; stopping the run…')
    expect(a.err()).toContain('run stopped (aborted)')
  }, 60_000)

  it('agent > /dev/full: the run is stopped too; the write error is named, exit 1', async () => {
    server.push({ textChunks: Array.from({ length: 300 }, (_, i) => `w${i} `), firstDelayMs: 0, delayMs: 100 })
    const full = fs.openSync('/dev/full', 'w')
    const child = spawn(process.execPath, [BIN, 'agent', '-m', 'go', '--session-key', 'agent:main:full', '--url', gw.url, '--state-dir', tempDir('loopdesk-cut-')], {
      env: { ...process.env, LOOPDESK_GATEWAY_TOKEN: TOKEN },
      stdio: ['ignore', full, 'pipe'],
    })
    fs.closeSync(full)
    let stderr = ''
    child.stderr!.on('data', (d) => (stderr += d))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(code, stderr).toBe(1)
    expect(stderr).toContain('loopdesk: cannot write the output: ENOSPC\n')
    expect(stderr).toContain('stopping the run…')
    const state = await until(() => {
      for (const e of rt.events) {
        if (e.event === 'chat' && e.payload.sessionKey === 'agent:main:full' && (e.payload.state === 'aborted' || e.payload.state === 'final')) return e.payload.state
      }
      return undefined
    }, 20_000, 'the run to end')
    expect(state).toBe('aborted')
  }, 60_000)

  it('gateway call agent --expect-final whose result cannot be written: exit 141, nothing on stderr', async () => {
    server.push({ text: 'done' })
    const c = cutCli(['gateway', 'call', 'agent', '--expect-final', '--params', JSON.stringify({ message: 'hi', idempotencyKey: 'cut-k1', sessionKey: 'agent:main:cutc' })])
    expect(await c.done, c.err()).toBe(141)
    expect(c.err()).toBe('')
  }, 60_000)

  for (const args of [['sessions'], ['sessions', '--json'], ['models'], ['models', '--json']]) {
    it(`${args.join(' ')} cut by head exits quietly with 141`, async () => {
      const c = cutCli(args)
      expect(await c.done, c.err()).toBe(141)
      expect(c.err()).toBe('')
    }, 60_000)
  }
})
