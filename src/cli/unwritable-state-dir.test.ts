// A state dir the CLI cannot write its device identity into (read-only, a full disk, a file in the way of
// identity/): gateway commands still run, on a throwaway identity as with a state dir that does not exist, and
// nothing is written there. They failed with the bare errno of a mkdir ("ENOTDIR: not a directory, mkdir …").
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { useRuntimeGateway } from '../../test/fixtures/runtime-gateway'

const TOKEN = 'unwritable-state-token-0123456789abcdef'
const env = useRuntimeGateway(TOKEN)

/** a state dir whose identity/ cannot be made (tests run as root, for whom a chmod 0555 is no obstacle) */
function blockedStateDir(): string {
  const dir = tempDir('loopdesk-cli-blocked-')
  fs.writeFileSync(path.join(dir, 'identity'), 'not a folder\n')
  return dir
}

describe('a state dir that cannot keep the CLI identity', () => {
  for (const args of [['status', '--json'], ['sessions', '--json'], ['config', 'get', 'agents.defaults.model.primary']]) {
    it(`${args.join(' ')} runs on a throwaway identity`, async () => {
      const dir = blockedStateDir()
      const r = await runCliCaptured([...args, '--url', env.stack.gw.url, '--state-dir', dir], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
      expect(r.err).toBe('')
      expect(r.code).toBe(0)
      expect(r.out.trim()).not.toBe('')
      expect(fs.readdirSync(dir)).toEqual(['identity'])
    })
  }

  it('a gateway that is not there is still "not running" (exit 3), not an errno', async () => {
    const dir = blockedStateDir()
    const r = await runCliCaptured(['status', '--url', 'ws://127.0.0.1:9', '--state-dir', dir], { LOOPDESK_GATEWAY_TOKEN: TOKEN })
    expect(r.code, r.err).toBe(3)
    expect(r.err).toMatch(/^loopdesk: gateway not running at ws:\/\/127\.0\.0\.1:9/)
  })
})
