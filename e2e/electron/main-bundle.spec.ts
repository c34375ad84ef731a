// Runs the BUILT main and preload bundles under plain Node with an `electron` stand-in (no binary
// needed), so the desktop wiring is exercised on every machine: real runtime, real gateway, the real
// preload talking to the main process's IPC handlers. See stand-in/drive.ts for what is checked.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from '@playwright/test'

const root = process.cwd()
const built = existsSync(join(root, 'out/main/index.js')) && existsSync(join(root, 'out/preload/index.cjs'))

const EXPECTED = [
  'no start-up error',
  'app:// registered as privileged standard+secure scheme',
  'global sandbox enabled',
  'window webPreferences locked down',
  'preload path is the built CommonJS preload',
  'window loads app://loopdesk/index.html',
  'web-contents guard installed',
  'window.open denied',
  'app://loopdesk/index.html served',
  'CSP header strict',
  'path traversal refused',
  'every script chunk served as JavaScript, the lazily loaded ones too',
  'CSP added to every session response',
  'permission request denied',
  'preload exposes window.loopdesk',
  'bridge has no generic invoke/on',
  'health over IPC',
  'bad params → INVALID_REQUEST',
  'foreign sender → FORBIDDEN',
  'subframe → FORBIDDEN',
  'chat.send accepted',
  'chat final carries the model reply',
  'chat deltas streamed before final',
  'history has the reply',
  'prefs.set persists and applies the theme',
  'gateway port recorded in the state dir',
  'gateway sends connect.challenge',
  'unpaired remote device refused PAIRING_REQUIRED',
  'window hears device.pair.requested over IPC',
  'pairingList over IPC shows the request',
  'pairingApprove over IPC pairs the device',
  'approved device connects',
  'answered request → PAIRING_REQUEST_NOT_FOUND',
  'quit completes after shutdown',
  'gateway port file removed on quit',
  'IPC handlers removed on quit',
]

test('built main + preload bundles run end to end (electron stand-in)', async () => {
  test.skip(!built, 'the app is not built: run `npm run build` first')
  test.setTimeout(120_000)
  const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', '--import', './e2e/electron/stand-in/register.mjs', 'e2e/electron/stand-in/drive.ts'],
      { cwd: root, timeout: 100_000, env: { ...process.env, NO_COLOR: '1' }, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => resolve({ stdout, stderr, code: err ? ((err as { code?: number }).code ?? 1) : 0 }),
    )
  })
  const line = stdout.split('\n').find((l) => l.startsWith('SMOKE_RESULT '))
  expect(line, `driver printed no result (exit ${code})\n${stderr.slice(-4000)}`).toBeDefined()
  const result = JSON.parse(line!.slice('SMOKE_RESULT '.length)) as {
    checks: Array<{ name: string; ok: boolean; detail?: string }>
    startMs?: number
    readyMs?: number
    roundTripMs?: number
    quitMs?: number
  }
  const failed = result.checks.filter((c) => !c.ok)
  expect(failed, failed.map((c) => `${c.name}: ${c.detail}`).join('\n')).toEqual([])
  expect(result.checks.map((c) => c.name)).toEqual(EXPECTED)
  expect(code).toBe(0)
  test.info().annotations.push({
    type: 'timing',
    description: `start→window ${result.startMs} ms, start→first IPC answer ${result.readyMs} ms, send→final ${result.roundTripMs} ms, quit ${result.quitMs} ms`,
  })
})
