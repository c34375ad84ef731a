// `loopdesk agent --local` stopped with Ctrl-C (or SIGTERM) while the model has not sent a word yet: the run stops
// and says so (exit 130). The signal used to be dropped until the run had a chat event, so a silent model held
// the terminal until the run timed out.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureIO } from '../../test/fixtures/cli-io'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { tempDir } from '../../test/fixtures/temp-dir'
import { testConfig } from '../../test/fixtures/test-runtime'
import { runCli } from './main'

let server: ModelServer
beforeAll(async () => {
  server = await startModelServer()
})
afterAll(async () => {
  await server.close()
})

describe('loopdesk agent --local interrupted', () => {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    it(`${signal} while the model is silent stops the run: exit 130`, async () => {
      const state = tempDir('loopdesk-local-int-')
      fs.writeFileSync(path.join(state, 'loopdesk.json'), JSON.stringify(testConfig(server)))
      server.push({ hang: true })
      const before = server.requests.length
      const c = captureIO()
      const run = runCli(['agent', '--local', '-m', 'wait for it', '--timeout', '60', '--state-dir', state], c.io)
      await server.waitForRequests(before + 1, 20_000)
      c.signal(signal)
      const code = await Promise.race([run, new Promise((r) => setTimeout(() => r('still running 10 s after the signal'), 10_000))])
      expect(code, c.err()).toBe(130)
      expect(c.err()).toContain('stopping the run…')
      expect(c.err()).toContain('run stopped (aborted)')
    }, 40_000)
  }
})
