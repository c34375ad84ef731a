import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createRuntime, type Runtime } from './runtime'

const made: string[] = []
let rt: Runtime | undefined
afterEach(async () => {
  await rt?.shutdown({ drainMs: 0 })
  rt = undefined
  for (const d of made.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

const modeOf = (p: string) => fs.statSync(p).mode & 0o777

describe.skipIf(process.platform === 'win32')('the state dir', () => {
  it('is created owner-only (0700) when the runtime makes it', async () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-state-'))
    made.push(parent)
    const stateDir = path.join(parent, 'fresh', 'state')
    rt = await createRuntime({ stateDir, env: {}, watchConfig: false, extensions: false })
    expect(modeOf(stateDir)).toBe(0o700)
  })

  it("an existing one keeps the user's mode", async () => {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-state-'))
    made.push(stateDir)
    fs.chmodSync(stateDir, 0o750)
    rt = await createRuntime({ stateDir, env: {}, watchConfig: false, extensions: false })
    expect(modeOf(stateDir)).toBe(0o750)
  })
})
