// Regression (found by the faults suite, test/faults/auth.test.ts): `gateway run --bind lan` (or
// gateway.bind "lan"/"all" in the config) listened on 0.0.0.0 guarded only by a token Loopdesk had
// generated on its own — nobody chose to expose the gateway. Now a generated token means loopback only.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../../cli/main'
import type { CliIO } from '../../cli/io'
import { FakeHost } from './fake-host'
import { startGateway } from './server'

const dirs: string[] = []
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'loopdesk-bind-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('binding beyond loopback', () => {
  it('startGateway refuses lan/all with a generated token', async () => {
    for (const bind of ['lan', 'all'] as const) {
      await expect(startGateway({ host: new FakeHost(), port: 0, bind, token: 'generated-token-0123456789', tokenGenerated: true, stateDir: tmp(), staticDir: null })).rejects.toThrow(
        /needs a configured token/,
      )
    }
  })

  it('startGateway binds lan with a configured token', async () => {
    const gw = await startGateway({ host: new FakeHost(), port: 0, bind: 'lan', token: 'configured-token-0123456789', stateDir: tmp(), staticDir: null })
    await gw.close()
  })

  it('`loopdesk gateway run --bind lan` without a configured token is a usage error', async () => {
    const err: string[] = []
    const io: CliIO = { env: {}, stdout: () => undefined, stderr: (t) => err.push(t), onSignal: () => () => undefined }
    expect(await runCli(['gateway', 'run', '--port', '0', '--bind', 'lan', '--state-dir', tmp()], io)).toBe(2)
    expect(err.join('')).toMatch(/--bind lan needs a configured token/)
  })
})
