// `loopdesk backup`: a copy of the state dir's data — what goes in, what stays out, and that it refuses to
// overwrite or nest. The CLI in-process; the runtime writes the state it copies.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { startTestRuntime, type TestRuntime } from '../../test/fixtures/test-runtime'

let server: ModelServer
let t: TestRuntime

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'kept safe' } })
  t = await startTestRuntime(server)
  await t.call('agent', { message: 'remember this', idempotencyKey: 'b1' })
  await t.call('agent.wait', { runId: 'b1', timeoutMs: 10_000 })
  await t.call('sessions.reset', { key: 'agent:main:main' }) // an archived transcript too
  // what the gateway and the CLI keep in the same dir, and a lock and a temp file
  fs.mkdirSync(path.join(t.stateDir, 'gateway'), { recursive: true })
  fs.writeFileSync(path.join(t.stateDir, 'gateway', 'token'), 'secret-gateway-token', { mode: 0o600 })
  fs.mkdirSync(path.join(t.stateDir, 'identity'), { recursive: true })
  fs.writeFileSync(path.join(t.stateDir, 'identity', 'device.json'), '{"privateKey":"x"}', { mode: 0o600 })
  fs.writeFileSync(path.join(t.stateDir, 'credentials.json'), '{"openai":"sk-secret"}', { mode: 0o600 })
  fs.mkdirSync(path.join(t.stateDir, 'workspace'), { recursive: true })
  fs.writeFileSync(path.join(t.stateDir, 'workspace', 'notes.txt'), 'agent output')
  fs.writeFileSync(path.join(t.stateDir, 'workspace', 'Cargo.lock'), '# a project file, not a lock of ours')
  fs.writeFileSync(path.join(t.stateDir, 'agents', 'main', 'sessions', 'sessions.json.lock'), '')
  fs.writeFileSync(path.join(t.stateDir, 'agents', 'main', 'sessions', 'sessions.json.123.4.tmp'), '{')
})
afterAll(async () => {
  await t?.close()
  await server?.close()
})

const files = (dir: string): string[] =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort()

describe('loopdesk backup', () => {
  it('copies config, sessions, transcripts (archived too) and event logs; leaves out keys, the gateway, device keys, locks, temp files, the workspace', async () => {
    const out = path.join(tempDir('loopdesk-backup-'), 'b')
    const r = await runCliCaptured(['backup', out, '--state-dir', t.stateDir])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(new RegExp(`^backed up \\d+ files \\(\\d+ KB\\) to ${out}\\nleft out: gateway token and paired devices, device keys, API keys \\(--include-keys\\), workspace \\(--with-workspace\\)\\n$`))
    const copied = files(out)
    expect(copied).toContain('loopdesk.json')
    expect(copied).toContain('agents/main/sessions/sessions.json')
    expect(copied.some((f) => /^agents\/main\/sessions\/[0-9a-f-]+\.jsonl\.reset\.\d+/.test(f))).toBe(true)
    expect(copied).toContain('loopdesk-backup.json')
    for (const f of copied.filter((x) => x !== 'loopdesk-backup.json')) {
      expect(fs.readFileSync(path.join(out, f)).equals(fs.readFileSync(path.join(t.stateDir, f))), f).toBe(true)
    }
    expect(copied.filter((f) => /^(gateway|identity|workspace)\/|credentials\.json|\.lock$|\.tmp$/.test(f))).toEqual([])
    const archived = copied.find((f) => f.includes('.jsonl.reset.'))!
    expect(fs.statSync(path.join(out, archived)).mode & 0o777).toBe(fs.statSync(path.join(t.stateDir, archived)).mode & 0o777)
    expect(fs.readFileSync(path.join(out, archived), 'utf8')).toContain('remember this')
    expect(JSON.parse(fs.readFileSync(path.join(out, 'loopdesk-backup.json'), 'utf8'))).toMatchObject({ version: 1, files: copied.length - 1 })
  })

  it('--include-keys and --with-workspace add them (and say the copy is now secret)', async () => {
    const out = path.join(tempDir('loopdesk-backup-'), 'b')
    const r = await runCliCaptured(['backup', out, '--include-keys', '--with-workspace', '--state-dir', t.stateDir])
    expect(r.code).toBe(0)
    expect(r.err).toContain('holds your API keys')
    // in the workspace every file is the user's, a Cargo.lock too
    expect(files(out)).toEqual(expect.arrayContaining(['credentials.json', 'workspace/notes.txt', 'workspace/Cargo.lock']))
    expect(fs.statSync(path.join(out, 'credentials.json')).mode & 0o777).toBe(0o600)
    expect(files(out).some((f) => f.startsWith('gateway/') || f.startsWith('identity/'))).toBe(false)
  })

  it('refuses a folder that is not empty or is inside the state dir, and a missing state dir', async () => {
    const full = tempDir('loopdesk-backup-full-')
    fs.writeFileSync(path.join(full, 'x'), '')
    expect(await runCliCaptured(['backup', full, '--state-dir', t.stateDir])).toMatchObject({ code: 2, err: expect.stringContaining('is not empty') })
    expect(await runCliCaptured(['backup', path.join(t.stateDir, 'backups'), '--state-dir', t.stateDir])).toMatchObject({
      code: 2,
      err: expect.stringContaining('cannot go inside the state dir'),
    })
    // through a link that leads into the state dir (its real place counts), and onto a file
    const link = path.join(tempDir('loopdesk-backup-link-'), 'to-state')
    fs.symlinkSync(path.join(t.stateDir, 'agents'), link)
    expect(await runCliCaptured(['backup', link, '--state-dir', t.stateDir])).toMatchObject({ code: 2, err: expect.stringContaining('cannot go inside the state dir') })
    expect(await runCliCaptured(['backup', path.join(link, 'new'), '--state-dir', t.stateDir])).toMatchObject({ code: 2, err: expect.stringContaining('cannot go inside the state dir') })
    expect(fs.existsSync(path.join(t.stateDir, 'agents', 'new'))).toBe(false)
    expect(await runCliCaptured(['backup', path.join(full, 'x'), '--state-dir', t.stateDir])).toMatchObject({ code: 2, err: expect.stringContaining('is a file') })
    expect(await runCliCaptured(['backup', path.join(tempDir('loopdesk-backup-'), 'b'), '--state-dir', '/nonexistent/loopdesk-state'])).toMatchObject({
      code: 1,
      err: expect.stringContaining('no state dir'),
    })
  })

  it('a folder that cannot be made is a clear error at once: under a file, or on a pseudo filesystem (mkdir -p spins there on Node 20)', async () => {
    const file = path.join(tempDir('loopdesk-backup-file-'), 'notes.txt')
    fs.writeFileSync(file, 'x')
    expect(await runCliCaptured(['backup', path.join(file, 'sub'), '--state-dir', t.stateDir])).toEqual(
      expect.objectContaining({ code: 1, err: `loopdesk: cannot create the backup folder ${path.join(file, 'sub')}: a part of that path is a file\n` }),
    )
    if (fs.existsSync('/proc/self')) {
      const r = await runCliCaptured(['backup', '/proc/loopdesk-backup', '--state-dir', t.stateDir])
      expect(r).toMatchObject({ code: 1, err: expect.stringContaining('cannot create the backup folder /proc/loopdesk-backup') })
    }
  })
})
