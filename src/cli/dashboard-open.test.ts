// `loopdesk dashboard --open`: the link is printed whatever happens; when the browser cannot be opened
// (no xdg-open, or it fails) stderr says so and why, without the token; exit 0 either way.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storeGatewayToken } from '../main/gateway/state-files'
import { startTestGateway, TEST_TOKEN, type TestGateway } from '../main/gateway/test-support'
import { captureIO } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { runCli } from './main'
import { OPENER_WAIT_MS } from './open-browser'

let t: TestGateway
beforeAll(async () => {
  t = await startTestGateway()
  storeGatewayToken(t.stateDir, TEST_TOKEN)
})
afterAll(async () => {
  await t.stop()
})

/** A folder holding an `xdg-open` that runs `script` (as the only opener on PATH). */
function opener(script: string): string {
  const dir = tempDir('loopdesk-opener-')
  writeFileSync(join(dir, 'xdg-open'), `#!/bin/sh\n${script}\n`, { mode: 0o755 })
  return dir
}

async function dashboardOpen(path: string) {
  const c = captureIO({ PATH: path })
  const code = await runCli(['dashboard', '--open', '--state-dir', t.stateDir], c.io)
  return { code, out: c.out(), err: c.err(), link: `http://127.0.0.1:${t.gw.port}/#token=${TEST_TOKEN}` }
}

// xdg-open is the Linux opener (macOS and Windows have theirs built in)
describe.runIf(process.platform === 'linux')('loopdesk dashboard --open', () => {
  it('opens the link with xdg-open and says nothing more', async () => {
    const dir = opener('printf %s "$1" > "$(dirname "$0")/opened"')
    const r = await dashboardOpen(`${dir}:/usr/bin:/bin`)
    expect(r).toMatchObject({ code: 0, out: `${r.link}\n`, err: '' })
    expect(readFileSync(join(dir, 'opened'), 'utf8')).toBe(r.link)
  })

  it('xdg-open failing: the link, then why on stderr (its message, the token left out), exit 0', async () => {
    const r = await dashboardOpen(`${opener(`echo "xdg-open: no method available for opening '$1'" >&2; exit 3`)}:/usr/bin:/bin`)
    expect(r).toMatchObject({ code: 0, out: `${r.link}\n` })
    expect(r.err).toBe(
      "loopdesk: could not open a browser (xdg-open exited with code 3: xdg-open: no method available for opening 'the link'); open the link above yourself\n",
    )
  })

  it('no xdg-open at all: says so', async () => {
    const r = await dashboardOpen(tempDir('loopdesk-no-opener-'))
    expect(r).toMatchObject({ code: 0, out: `${r.link}\n` })
    expect(r.err).toBe('loopdesk: could not open a browser (xdg-open not found); open the link above yourself\n')
  })

  it('an opener still running after the wait (a browser in the foreground) counts as opened', async () => {
    const dir = opener('echo $$ > "$(dirname "$0")/pid"; exec sleep 20')
    const started = Date.now()
    const r = await dashboardOpen(`${dir}:/usr/bin:/bin`)
    try {
      expect(r).toMatchObject({ code: 0, out: `${r.link}\n`, err: '' })
      expect(Date.now() - started).toBeGreaterThanOrEqual(OPENER_WAIT_MS - 100)
    } finally {
      if (existsSync(join(dir, 'pid'))) process.kill(Number(readFileSync(join(dir, 'pid'), 'utf8')), 'SIGKILL')
    }
  })
})
