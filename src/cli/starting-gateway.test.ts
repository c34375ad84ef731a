// A command run while `loopdesk gateway run` is still starting on the state dir (its runtime record written, its
// gateway.json not yet): it waits for the gateway and goes on, instead of "gateway not running … start one".
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureIO } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { storeGatewayToken, writeGatewayInfo } from '../main/gateway/state-files'
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../main/gateway/test-support'
import { processStartTime } from '../main/runtime/sessions/process-info'
import { runCli } from './main'

let t: TestGateway
const children: ChildProcess[] = []
beforeAll(async () => {
  t = await startTestGateway()
})
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL')
  await t.stop()
})

/** A state dir where a `gateway run` (a live stand-in process) has claimed the folder and is not listening yet. */
async function startingGateway() {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'])
  children.push(child)
  await new Promise((r) => child.once('spawn', r))
  const pid = child.pid!
  const dir = tempDir('loopdesk-starting-')
  // a port nothing listens on: the configured default must not reach some other gateway
  writeFileSync(join(dir, 'loopdesk.json'), JSON.stringify({ gateway: { port: 9 } }))
  mkdirSync(join(dir, 'gateway', 'runtimes'), { recursive: true })
  const pidStart = processStartTime(pid)
  writeFileSync(join(dir, 'gateway', 'runtimes', `${pid}.json`), JSON.stringify({ pid, pidStart, launchedBy: 'gateway', startedAt: Date.now() }))
  /** what `gateway run` writes once it listens (here: the test gateway's address and token) */
  const listening = () => {
    storeGatewayToken(dir, TEST_TOKEN)
    writeGatewayInfo(dir, { port: t.gw.port, url: t.gw.url, pid, ...(pidStart ? { pidStart } : {}), startedAt: Date.now() })
  }
  return { dir, pid, child, listening }
}

describe('a command while the gateway is starting', () => {
  it('gateway call and dashboard wait for it to listen, saying so on stderr, then use it', async () => {
    for (const argv of [['gateway', 'call', 'health', '--json'], ['dashboard']]) {
      const s = await startingGateway()
      const c = captureIO()
      const run = runCli([...argv, '--state-dir', s.dir], c.io)
      await new Promise((r) => setTimeout(r, 600))
      s.listening()
      expect(await run, c.err()).toBe(0)
      expect(c.err()).toBe(`loopdesk: the gateway (pid ${s.pid}) is starting; waiting for it…\n`)
      if (argv[0] === 'dashboard') expect(c.out()).toBe(`http://127.0.0.1:${t.gw.port}/#token=${TEST_TOKEN}\n`)
      else expect(JSON.parse(c.out())).toMatchObject({ ok: true })
    }
  })

  it('the stale record of a gateway that was killed does not stop the wait for the one starting now', async () => {
    const s = await startingGateway()
    // above Linux's largest pid_max: never a live process
    writeGatewayInfo(s.dir, { port: 9, url: 'ws://127.0.0.1:9', pid: 2 ** 22 + 1, startedAt: Date.now() - 60_000 })
    const c = captureIO()
    const run = runCli(['gateway', 'call', 'health', '--state-dir', s.dir], c.io)
    await new Promise((r) => setTimeout(r, 300))
    s.listening()
    expect(await run, c.err()).toBe(0)
    expect(c.err()).toContain('is starting; waiting for it')
  })

  it('one that exits instead of listening ends the wait at once: gateway not running, exit 3', async () => {
    const s = await startingGateway()
    const c = captureIO()
    const started = Date.now()
    const run = runCli(['gateway', 'call', 'health', '--state-dir', s.dir], c.io)
    setTimeout(() => s.child.kill('SIGKILL'), 300)
    expect(await run).toBe(3)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(c.err()).toContain('gateway not running at ws://127.0.0.1:9')
  })

  it('a command given --url does not wait', async () => {
    const s = await startingGateway()
    const c = captureIO({ LOOPDESK_GATEWAY_TOKEN: TEST_TOKEN })
    expect(await runCli(['gateway', 'call', 'health', '--state-dir', s.dir, '--url', t.gw.url], c.io)).toBe(0)
    expect(c.err()).toBe('')
  })
})
