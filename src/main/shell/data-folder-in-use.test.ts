// The desktop app's check before it starts its runtime: another gateway serving the data folder (a real
// process listening, as `loopdesk gateway run` would) is named in a question; Retry checks again, Quit quits;
// a stale gateway.json never asks.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { tempDir } from '../../../test/fixtures/temp-dir'
import { writeGatewayInfo, type GatewayInfo } from '../gateway/state-files'
import { claimDataFolder, inUseQuestion, type InUseAnswer, type InUseQuestion } from './data-folder-in-use'

const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL')
})

/** a separate process listening on a loopback port, as a headless gateway does */
async function listener(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['-e', "require('net').createServer().listen(0, '127.0.0.1', function () { console.log(this.address().port) })"], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer]
  return { child, port: Number(chunk.toString().trim()) }
}

const record = (pid: number, port: number, launchedBy?: GatewayInfo['launchedBy']): GatewayInfo => ({
  pid,
  port,
  url: `ws://127.0.0.1:${port}`,
  startedAt: Date.now(),
  ...(launchedBy ? { launchedBy } : {}),
})

describe('claimDataFolder', () => {
  it('no gateway.json: starts without asking', async () => {
    const ask = vi.fn()
    expect(await claimDataFolder(tempDir('ld-inuse-'), { ask })).toBe('start')
    expect(ask).not.toHaveBeenCalled()
  })

  it('a terminal gateway serving the folder is named; Retry after it stopped starts, without asking again', async () => {
    const dir = tempDir('ld-inuse-')
    const { child, port } = await listener()
    writeGatewayInfo(dir, record(child.pid!, port, 'cli'))
    const asked: InUseQuestion[] = []
    const verdict = await claimDataFolder(dir, {
      ask: async (q) => {
        asked.push(q)
        if (asked.length === 1) return 'retry' // still running: asked again
        child.kill('SIGTERM') // the user stopped it in its terminal
        await once(child, 'exit')
        return 'retry'
      },
    })
    expect(verdict).toBe('start')
    expect(asked).toHaveLength(2)
    expect(asked[0].message).toBe(`A Loopdesk gateway (pid ${child.pid}, started from a terminal) already uses this data folder`)
    expect(asked[0].detail).toContain(dir)
    expect(asked[0].detail).toContain(`Ctrl+C in its terminal, or kill ${child.pid}`)
    expect(asked[0].buttons).toEqual(['Retry', 'Quit'])
  })

  it('Quit: quits, the folder left to the other gateway', async () => {
    const dir = tempDir('ld-inuse-')
    const { child, port } = await listener()
    writeGatewayInfo(dir, record(child.pid!, port, 'cli'))
    const ask = vi.fn(async (): Promise<InUseAnswer> => 'quit')
    expect(await claimDataFolder(dir, { ask })).toBe('quit')
    expect(ask).toHaveBeenCalledTimes(1)
  })

  it('a stale record — its process gone, or nothing on its port — never asks', async () => {
    const dir = tempDir('ld-inuse-')
    const ask = vi.fn()
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!
    const { child, port } = await listener()
    writeGatewayInfo(dir, record(gone, port, 'cli'))
    expect(await claimDataFolder(dir, { ask })).toBe('start')
    child.kill('SIGKILL')
    await once(child, 'exit')
    const alive = await listener()
    writeGatewayInfo(dir, record(alive.child.pid!, port)) // alive, but its recorded port is closed
    expect(await claimDataFolder(dir, { ask })).toBe('start')
    expect(ask).not.toHaveBeenCalled()
  })
})

describe('inUseQuestion', () => {
  it('names what started the gateway, and says how to stop it', () => {
    const app = inUseQuestion(record(42, 1, 'app'), '/d')
    expect(app.message).toBe('Another Loopdesk app (pid 42) already uses this data folder')
    expect(app.detail).toMatch(/^\/d\n\nQuit that Loopdesk, then choose Retry\./)
    expect(app.detail).not.toContain('dashboard')
    const older = inUseQuestion(record(43, 1), '/d')
    expect(older.message).toBe('A Loopdesk gateway (pid 43) already uses this data folder')
    expect(older.detail).toContain('Stop it (kill 43), then choose Retry.')
    expect(older.detail).toContain('loopdesk dashboard --open')
  })

  it('a `gateway run` still starting (its runtime record, no gateway.json yet) is named as the terminal gateway it is', () => {
    const q = inUseQuestion({ pid: 44, launchedBy: 'gateway', startedAt: 1 }, '/data')
    expect(q.message).toBe('A Loopdesk gateway (pid 44, started from a terminal) already uses this data folder')
    expect(q.detail).toContain('Stop it (Ctrl+C in its terminal, or kill 44), then choose Retry.')
  })
})
