// gateway.json and the runtime records share one liveness rule: on Linux a record names its process by pid and
// start time, so a pid the OS handed to another process since is no gateway. A record without a start time (older
// versions) counts only when its process started before the record was written.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { afterEach, describe, expect, it } from 'vitest'
import { tempDir } from '../../../test/fixtures/temp-dir'
import { processStartTime } from '../runtime/sessions/process-info'
import { servingGateway } from './gateway-in-use'
import { claimGatewayInfo, gatewayProcessAlive, readGatewayInfo, writeGatewayInfo, type GatewayInfo } from './state-files'
import { recordedProcessAlive, startTimeMs } from './record-alive'

const children: ChildProcess[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

/** A process that merely listens on a port (no gateway), and the port. */
async function listener(): Promise<{ pid: number; port: number }> {
  const child = spawn(process.execPath, ['-e', "const s=require('net').createServer().listen(0,'127.0.0.1',()=>console.log(s.address().port))"], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  children.push(child)
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer]
  return { pid: child.pid!, port: Number(chunk.toString().trim()) }
}

const record = (pid: number, port: number, over: Partial<GatewayInfo> = {}): GatewayInfo => ({ pid, port, url: `ws://127.0.0.1:${port}`, ...over, startedAt: over.startedAt ?? 0 })

describe.runIf(process.platform === 'linux')('one liveness rule for gateway.json and runtime records', () => {
  it("a start time is read as wall-clock time: this process's is its own start", () => {
    const own = startTimeMs(processStartTime(process.pid)!)!
    expect(Math.abs(own - (Date.now() - process.uptime() * 1000))).toBeLessThan(1500)
  })

  it('an old gateway.json (no pidStart) naming a pid a later process took over is stale: gateway run does not give way to it', async () => {
    const writtenAt = Date.now() - 60_000 // the old gateway's record, a minute before the pid was reused
    const { pid, port } = await listener()
    const old = record(pid, port, { startedAt: writtenAt })
    expect(gatewayProcessAlive(old)).toBe(false)
    expect(recordedProcessAlive(old)).toBe(false)
    const dir = tempDir('ld-record-')
    writeGatewayInfo(dir, old)
    expect(await servingGateway(dir)).toBeUndefined()
    // nor is it put back or reported as replaced when a new gateway claims the record
    expect(claimGatewayInfo(dir, record(process.pid, 1, { startedAt: Date.now() }))).toBeUndefined()
    // a record with no time at all proves nothing either
    expect(gatewayProcessAlive(record(pid, port))).toBe(false)
  })

  it("an earlier version's record (no pidStart) of a gateway that really runs still counts: it started before writing it", async () => {
    const { pid, port } = await listener()
    const info = record(pid, port, { startedAt: Date.now() })
    expect(gatewayProcessAlive(info)).toBe(true)
    const dir = tempDir('ld-record-')
    writeGatewayInfo(dir, info)
    expect(await servingGateway(dir)).toEqual(readGatewayInfo(dir))
  })

  it('a record with a start time counts only when it is the running process\'s', async () => {
    const { pid, port } = await listener()
    expect(gatewayProcessAlive(record(pid, port, { pidStart: processStartTime(pid)!, startedAt: 1 }))).toBe(true)
    expect(gatewayProcessAlive(record(pid, port, { pidStart: '1', startedAt: Date.now() }))).toBe(false)
  })
})
