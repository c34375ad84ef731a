// `agent --local` (and the app) check for another runtime and record their own in one locked step: two starting
// at the same moment used to both read "none", both record themselves and both run on one state dir.
// Real processes: a holder between its check and its write, and two claimants racing.
import { spawn } from 'node:child_process'
import { mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { runCliCaptured } from '../../../test/fixtures/cli-io'
import { tempDir } from '../../../test/fixtures/temp-dir'
import { claimEmbeddedRuntime, RuntimeInUseError } from './embedded-runtimes'

const runtimes = fileURLToPath(new URL('./embedded-runtimes.ts', import.meta.url))
const stateFiles = fileURLToPath(new URL('./state-files.ts', import.meta.url))
const writeLock = fileURLToPath(new URL('../runtime/sessions/write-lock.ts', import.meta.url))
const children: ReturnType<typeof spawn>[] = []
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL')
})

function child(code: string, until: string): Promise<{ pid: number; out: () => string }> {
  const c = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(c)
  let out = ''
  return new Promise((resolve, reject) => {
    c.stdout!.on('data', (d) => {
      out += String(d)
      if (out.includes(until)) resolve({ pid: c.pid!, out: () => out })
    })
    c.once('exit', (code) => reject(new Error(`child exited (${code}) before "${until}": ${out}`)))
  })
}

/** A runtime starting: it took the record lock (checked: none), says so, records itself 400 ms later and stays. */
function slowStarter(stateDir: string) {
  return child(
    `
    const { tryAcquireWriteLockSync } = await import(${JSON.stringify(writeLock)})
    const { infoPath } = await import(${JSON.stringify(stateFiles)})
    const { registerEmbeddedRuntime } = await import(${JSON.stringify(runtimes)})
    const dir = ${JSON.stringify(stateDir)}
    const release = tryAcquireWriteLockSync(infoPath(dir))
    process.stdout.write('locked\\n')
    setTimeout(() => {
      registerEmbeddedRuntime(dir, 'local')
      release()
    }, 400)
    setInterval(() => {}, 1000)
  `,
    'locked',
  )
}

/** A runtime claiming the folder at `at` (ms since the epoch), saying whether it may run; it stays alive. */
function claimant(stateDir: string, at: number) {
  return child(
    `
    const { claimEmbeddedRuntime } = await import(${JSON.stringify(runtimes)})
    setTimeout(() => {
      try {
        claimEmbeddedRuntime(${JSON.stringify(stateDir)}, 'local')
        process.stdout.write('claimed\\n')
      } catch (err) {
        process.stdout.write('refused ' + err.name + '\\n')
      }
      setInterval(() => {}, 1000)
    }, Math.max(0, ${at} - Date.now()))
  `,
    '\n',
  )
}

describe('claiming a state dir for a runtime without a gateway', () => {
  it('waits for a runtime between its check and its record, then sees it: refused, nothing recorded', async () => {
    const dir = tempDir('loopdesk-embedded-claim-')
    mkdirSync(join(dir, 'gateway', 'runtimes'), { recursive: true })
    const holder = await slowStarter(dir)
    let thrown: unknown
    try {
      claimEmbeddedRuntime(dir, 'local')
    } catch (err) {
      thrown = err
    }
    expect(thrown).toBeInstanceOf(RuntimeInUseError)
    expect((thrown as RuntimeInUseError).holder.pid).toBe(holder.pid)
    expect(readdirSync(join(dir, 'gateway', 'runtimes')).filter((n) => n.endsWith('.json'))).toEqual([`${holder.pid}.json`])
  }, 30_000)

  it('agent --local started while another runtime is between its check and its record: refused, naming it', async () => {
    const dir = tempDir('loopdesk-embedded-claim-')
    const holder = await slowStarter(dir)
    const r = await runCliCaptured(['agent', '--local', '--state-dir', dir, '-m', 'hi'], {})
    expect(r.err).toContain(`a \`loopdesk agent --local\` run (pid ${holder.pid}) already uses ${dir}`)
    expect(r.code).toBe(1)
  }, 30_000)

  it('two processes claiming at the same moment: exactly one may run', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = tempDir('loopdesk-embedded-claim-')
      const at = Date.now() + 1500 // both loaded and waiting by then
      const [a, b] = await Promise.all([claimant(dir, at), claimant(dir, at)])
      const answers = [a.out().trim(), b.out().trim()].sort()
      expect(answers).toEqual(['claimed', 'refused RuntimeInUseError'])
      for (const c of children.splice(0)) c.kill('SIGKILL')
    }
  }, 60_000)
})
