// gateway.json's read-then-write is one step across processes: a gateway starting while another process is
// between reading and writing the record waits for it, and so sees the gateway it replaces (two launches at
// the same moment used to both read "none" and both serve).
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../../test/fixtures/temp-dir'
import { claimGatewayInfo, infoPath, readGatewayInfo, removeGatewayInfo, type GatewayInfo } from './state-files'

const stateFiles = fileURLToPath(new URL('./state-files.ts', import.meta.url))
const writeLock = fileURLToPath(new URL('../runtime/sessions/write-lock.ts', import.meta.url))
const children: ReturnType<typeof spawn>[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

/** A process that takes the record lock, says so, writes its own record 300 ms later, lets go and stays alive. */
function slowWriter(stateDir: string) {
  const code = `
    const { tryAcquireWriteLockSync } = await import(${JSON.stringify(writeLock)})
    const { infoPath, writeGatewayInfo } = await import(${JSON.stringify(stateFiles)})
    const dir = ${JSON.stringify(stateDir)}
    const release = tryAcquireWriteLockSync(infoPath(dir))
    process.stdout.write('locked\\n')
    setTimeout(() => {
      writeGatewayInfo(dir, { port: 1, pid: process.pid, url: 'ws://127.0.0.1:1', startedAt: Date.now() })
      release()
      process.stdout.write('written\\n')
    }, 300)
    setInterval(() => {}, 1000)
  `
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(child)
  return new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d) => {
      out += String(d)
      if (out.includes('locked')) resolve(child.pid!)
    })
    child.once('exit', (c) => reject(new Error(`writer exited (${c}) before locking`)))
  })
}

const mine = (): GatewayInfo => ({ port: 2, pid: process.pid, url: 'ws://127.0.0.1:2', startedAt: 2 })

describe('gateway.json claim', () => {
  it('waits for a process between reading and writing the record, and returns that gateway as the one it replaces', async () => {
    const dir = tempDir('loopdesk-claim-')
    const writerPid = await slowWriter(dir)
    const replaced = claimGatewayInfo(dir, mine())
    expect(replaced?.pid).toBe(writerPid)
    expect(readGatewayInfo(dir)?.pid).toBe(process.pid)
    expect(existsSync(`${infoPath(dir)}.lock`)).toBe(false)
    // on stop the live one's record is put back, again under the lock
    removeGatewayInfo(dir, process.pid, 2, replaced)
    expect(readGatewayInfo(dir)?.pid).toBe(writerPid)
  }, 30_000)

  it('takes over a lock its holder left when killed', async () => {
    const dir = tempDir('loopdesk-claim-')
    const writerPid = await slowWriter(dir)
    process.kill(writerPid, 'SIGKILL')
    await new Promise((r) => children[0]!.once('exit', r))
    expect(existsSync(join(dir, 'gateway', 'gateway.json.lock'))).toBe(true)
    expect(claimGatewayInfo(dir, mine())).toBeUndefined()
    expect(readGatewayInfo(dir)?.pid).toBe(process.pid)
  }, 30_000)
})
