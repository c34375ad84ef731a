// `loopdesk restore`: a backup goes back into the state dir and a runtime started on it has the old
// conversations again; what it replaces is moved aside, never deleted; a damaged backup, a state dir in use
// and a failure half-way leave the state dir as it was.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { runCliCaptured } from '../../test/fixtures/cli-io'
import { tempDir } from '../../test/fixtures/temp-dir'
import { startTestRuntime } from '../../test/fixtures/test-runtime'
import { applyRestore, planRestore } from './commands/restore'
import { CliError } from './io'
import { processStartTime } from '../main/runtime/sessions/process-info'

let server: ModelServer
let backup: string
/** the state dir the backup was made from (closed after the backup) */
let source: string

const files = (dir: string): string[] =>
  fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.relative(dir, path.join(e.parentPath, e.name))).sort()

/** a file → content map of a whole tree */
const snapshot = (dir: string) => Object.fromEntries(files(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]))

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'the old answer' } })
  source = path.join(tempDir('loopdesk-restore-src-'), 'state')
  const t = await startTestRuntime(server, { stateDir: source })
  await t.call('agent', { message: 'the old question', idempotencyKey: 'r1' })
  await t.call('agent.wait', { runId: 'r1', timeoutMs: 10_000 })
  await t.close()
  backup = path.join(tempDir('loopdesk-restore-b-'), 'b')
  expect((await runCliCaptured(['backup', backup, '--state-dir', source])).code).toBe(0)
})
afterAll(async () => {
  await server?.close()
})

/** a state dir that moved on since the backup: another conversation, this machine's gateway token and keys */
async function laterState(): Promise<string> {
  const state = path.join(tempDir('loopdesk-restore-s-'), 'state')
  fs.cpSync(source, state, { recursive: true })
  const t = await startTestRuntime(server, { stateDir: state })
  await t.call('agent', { message: 'a newer question', idempotencyKey: 'r2', sessionKey: 'agent:main:newer' })
  await t.call('agent.wait', { runId: 'r2', timeoutMs: 10_000 })
  await t.close()
  fs.mkdirSync(path.join(state, 'gateway'), { recursive: true })
  fs.writeFileSync(path.join(state, 'gateway', 'token'), 'this-machines-gateway-token\n', { mode: 0o600 })
  fs.writeFileSync(path.join(state, 'credentials.json'), '{"openai":"sk-this-machine"}', { mode: 0o600 })
  return state
}

describe('loopdesk restore', () => {
  it('without --yes says what it would do and changes nothing', async () => {
    const state = await laterState()
    const before = snapshot(state)
    const r = await runCliCaptured(['restore', backup, '--state-dir', state])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/^would restore \d+ files \(.+\) from .+ \(backed up \d{4}-.+\) into .+\nthe current data, \d+ items \(agents, .*loopdesk\.json.*\), would be moved to .+-before-restore-\d{8}-\d{6}\n/)
    expect(r.out).toContain('kept as they are: gateway token and paired devices, device keys, API keys (the backup has none), workspace (the backup has none)\n')
    expect(r.out).toMatch(/nothing changed — run again with --yes to restore\n$/)
    expect(snapshot(state)).toEqual(before)
    expect(fs.readdirSync(path.dirname(state))).toEqual(['state'])
  })

  it('--yes puts the backup back, moves the replaced data aside, keeps this machine’s token and keys; a runtime then has the old conversation', async () => {
    const state = await laterState()
    const before = snapshot(state)
    const r = await runCliCaptured(['restore', backup, '--yes', '--state-dir', state])
    expect(r.code, r.err).toBe(0)
    expect(r.out).toMatch(/^restored \d+ files .* into .+\nthe data it replaced, .* is in (.+-before-restore-\d{8}-\d{6}) \(delete it once the restore looks right\)\n/)
    const aside = /is in (\S+) \(delete/.exec(r.out)![1]
    // the data is the backup's, byte for byte; gateway/ and credentials.json are this machine's
    for (const f of files(backup).filter((x) => x !== 'loopdesk-backup.json')) {
      expect(fs.readFileSync(path.join(state, f)).equals(fs.readFileSync(path.join(backup, f))), f).toBe(true)
    }
    expect(fs.readFileSync(path.join(state, 'gateway', 'token'), 'utf8')).toBe('this-machines-gateway-token\n')
    expect(fs.readFileSync(path.join(state, 'credentials.json'), 'utf8')).toContain('sk-this-machine')
    expect(fs.existsSync(path.join(state, 'loopdesk-backup.json'))).toBe(false)
    // nothing lost: what was replaced is all in the aside folder, as it was
    for (const [f, text] of Object.entries(before)) {
      if (f.startsWith('gateway/') || f === 'credentials.json') continue
      expect(fs.readFileSync(path.join(aside, f), 'utf8'), f).toBe(text)
    }
    expect(fs.readdirSync(path.dirname(state)).sort()).toEqual(['state', path.basename(aside)].sort())

    const t = await startTestRuntime(server, { stateDir: state })
    try {
      const keys = (await t.call('sessions.list', {})).sessions.map((s) => s.key)
      expect(keys).toContain('agent:main:main')
      expect(keys).not.toContain('agent:main:newer')
      const history = await t.call('chat.history', { sessionKey: 'agent:main:main' })
      expect(JSON.stringify(history.messages)).toContain('the old question')
      expect(JSON.stringify(history.messages)).toContain('the old answer')
    } finally {
      await t.close()
    }
  })

  it('into a state dir that does not exist yet (a new machine)', async () => {
    const state = path.join(tempDir('loopdesk-restore-new-'), 'fresh')
    const r = await runCliCaptured(['restore', backup, '--yes', '--state-dir', state])
    expect(r.code, r.err).toBe(0)
    expect(r.out).not.toContain('is in')
    expect(files(state)).toEqual(files(backup).filter((f) => f !== 'loopdesk-backup.json'))
  })

  it('refuses what is not a whole backup, and changes nothing', async () => {
    const state = await laterState()
    const before = snapshot(state)
    const broken = (name: string, damage: (dir: string) => void) => {
      const dir = path.join(tempDir('loopdesk-restore-x-'), name)
      fs.cpSync(backup, dir, { recursive: true })
      damage(dir)
      return dir
    }
    const cases: Array<[string, RegExp]> = [
      [tempDir('loopdesk-restore-empty-'), /is not a Loopdesk backup \(it has no loopdesk-backup\.json\)/],
      [path.join(tempDir('loopdesk-restore-gone-'), 'nothing'), /nothing does not exist/],
      [broken('lost', (d) => fs.rmSync(path.join(d, 'agents', 'main', 'sessions', 'sessions.json'))), /the backup is incomplete or was changed: it holds \d+ files .*, its manifest lists \d+/],
      [broken('grown', (d) => fs.appendFileSync(path.join(d, 'loopdesk.json'), ' ')), /incomplete or was changed/],
      [
        broken('damaged', (d) => {
          const f = path.join(d, 'agents', 'main', 'sessions', 'sessions.json')
          fs.writeFileSync(f, '{'.padEnd(fs.statSync(f).size, ' ')) // same size, not JSON
        }),
        /the backup's agents\/main\/sessions\/sessions\.json is damaged/,
      ],
      [broken('linked', (d) => fs.symlinkSync('/etc/passwd', path.join(d, 'agents', 'main', 'passwd'))), /holds agents\/main\/passwd, which is not a regular file/],
      [
        broken('newer', (d) => {
          const m = path.join(d, 'loopdesk-backup.json')
          fs.writeFileSync(m, JSON.stringify({ ...JSON.parse(fs.readFileSync(m, 'utf8')), version: 2 }))
        }),
        /unknown backup version 2/,
      ],
    ]
    for (const [dir, why] of cases) {
      const r = await runCliCaptured(['restore', dir, '--yes', '--state-dir', state])
      expect(r.code, dir).toBe(1)
      expect(r.err, dir).toMatch(why)
      expect(r.err).toMatch(/^loopdesk: .+\n$/)
    }
    expect(await runCliCaptured(['restore', path.join(state, 'agents'), '--state-dir', state])).toMatchObject({ code: 2, err: expect.stringContaining('overlap') })
    expect(await runCliCaptured(['restore', '--state-dir', state])).toMatchObject({ code: 2, err: expect.stringContaining('needs the backup folder') })
    const aFile = path.join(tempDir('loopdesk-restore-file-'), 'notes.txt')
    fs.writeFileSync(aFile, 'mine')
    expect(await runCliCaptured(['restore', backup, '--yes', '--state-dir', aFile])).toMatchObject({ code: 2, err: expect.stringContaining(`the state dir ${aFile} is a file`) })
    expect(fs.readFileSync(aFile, 'utf8')).toBe('mine')
    expect(snapshot(state)).toEqual(before)
    expect(fs.readdirSync(path.dirname(state))).toEqual(['state'])
  })

  it('refuses while Loopdesk uses the state dir: a gateway, a runtime’s journal, a held lock', async () => {
    const state = await laterState()
    const sessions = path.join(state, 'agents', 'main', 'sessions')
    let other: ChildProcess | undefined
    try {
      other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
      const pid = other.pid!
      const users: Array<[() => void, RegExp, () => void]> = [
        [
          () => fs.writeFileSync(path.join(state, 'gateway', 'gateway.json'), JSON.stringify({ port: 1, pid, url: 'ws://127.0.0.1:1', startedAt: Date.now() })),
          new RegExp(`a gateway \\(pid ${pid}\\) serves it at ws://127\\.0\\.0\\.1:1`),
          () => fs.rmSync(path.join(state, 'gateway', 'gateway.json')),
        ],
        [
          () => fs.writeFileSync(path.join(sessions, `accepted.${pid}-abcd1234.jsonl`), ''),
          new RegExp(`a Loopdesk runtime \\(pid ${pid}\\) has sessions open`),
          () => fs.rmSync(path.join(sessions, `accepted.${pid}-abcd1234.jsonl`)),
        ],
        [
          () => fs.writeFileSync(path.join(sessions, 'sessions.json.lock'), JSON.stringify({ pid, createdAt: Date.now() })),
          new RegExp(`pid ${pid} is writing .*sessions\\.json`),
          () => fs.rmSync(path.join(sessions, 'sessions.json.lock')),
        ],
      ]
      // a gateway record whose pid now belongs to another process (start time differs) is stale
      if (processStartTime(pid)) {
        fs.writeFileSync(path.join(state, 'gateway', 'gateway.json'), JSON.stringify({ port: 1, pid, url: 'ws://127.0.0.1:1', startedAt: 0, pidStart: 'not-its-start' }))
        expect((await runCliCaptured(['restore', backup, '--state-dir', state])).code).toBe(0)
        fs.rmSync(path.join(state, 'gateway', 'gateway.json'))
      }
      for (const [use, why, stop] of users) {
        use()
        const r = await runCliCaptured(['restore', backup, '--yes', '--state-dir', state])
        expect(r.code).toBe(1)
        expect(r.err).toMatch(/^loopdesk: Loopdesk is using .+: /)
        expect(r.err).toMatch(why)
        expect(r.err).toContain('quit the app and stop the gateway')
        stop()
      }
      // a dead holder's leftovers do not count (a crash leaves them)
      other.kill('SIGKILL')
      await new Promise((r) => other!.once('exit', r))
      for (const [use] of users) use()
      expect((await runCliCaptured(['restore', backup, '--state-dir', state])).code).toBe(0)
    } finally {
      other?.kill('SIGKILL')
    }
  })

  it('secrets in loopdesk.json: a backup holds placeholders; a restore keeps this installation’s gateway token and keys', async () => {
    type Cfg = { models: { providers: Record<string, Record<string, unknown>> }; gateway?: { auth?: { token?: string } } }
    const cfgOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'loopdesk.json'), 'utf8')) as Cfg
    const base = cfgOf(source)
    const withSecrets = (apiKey: string | undefined, token: string | undefined): Cfg => ({
      ...base,
      models: { providers: { ...base.models.providers, mock: { ...base.models.providers.mock, ...(apiKey ? { apiKey } : {}) } } },
      ...(token ? { gateway: { auth: { token } } } : {}),
    })
    const stateWith = (apiKey?: string, token?: string) => {
      const dir = path.join(tempDir('loopdesk-restore-sec-'), 'state')
      fs.cpSync(source, dir, { recursive: true })
      fs.writeFileSync(path.join(dir, 'loopdesk.json'), JSON.stringify(withSecrets(apiKey, token)), { mode: 0o600 })
      return dir
    }
    const old = stateWith('sk-old-key', 'old-gateway-token-0123456789')
    const b = path.join(tempDir('loopdesk-restore-secb-'), 'b')
    expect((await runCliCaptured(['backup', b, '--state-dir', old])).code).toBe(0)
    const text = fs.readFileSync(path.join(b, 'loopdesk.json'), 'utf8')
    expect(text).not.toContain('sk-old-key')
    expect(text).not.toContain('old-gateway-token')
    expect(cfgOf(b)).toMatchObject({ models: { providers: { mock: { apiKey: '__REDACTED__' } } }, gateway: { auth: { token: '__REDACTED__' } } })
    expect(JSON.parse(fs.readFileSync(path.join(b, 'loopdesk-backup.json'), 'utf8')).redacted).toEqual(['models.providers.mock.apiKey', 'gateway.auth.token'])
    // --include-keys keeps the API key, never the gateway token
    const bk = path.join(tempDir('loopdesk-restore-secb-'), 'b')
    expect((await runCliCaptured(['backup', bk, '--include-keys', '--state-dir', old])).code).toBe(0)
    expect(cfgOf(bk)).toMatchObject({ models: { providers: { mock: { apiKey: 'sk-old-key' } } }, gateway: { auth: { token: '__REDACTED__' } } })

    // an installation whose token was rotated since and whose key changed keeps both
    const now = stateWith('sk-new-key', 'new-gateway-token-0123456789')
    const r = await runCliCaptured(['restore', bk, '--yes', '--state-dir', now])
    expect(r.code, r.err).toBe(0)
    expect(cfgOf(now)).toMatchObject({ models: { providers: { mock: { apiKey: 'sk-old-key' } } }, gateway: { auth: { token: 'new-gateway-token-0123456789' } } })
    const now2 = stateWith('sk-new-key', 'new-gateway-token-0123456789')
    expect((await runCliCaptured(['restore', b, '--yes', '--state-dir', now2])).code).toBe(0)
    expect(cfgOf(now2)).toMatchObject({ models: { providers: { mock: { apiKey: 'sk-new-key' } } }, gateway: { auth: { token: 'new-gateway-token-0123456789' } } })
    // one with neither: the placeholder key is dropped with a note, no token is set
    const bare = stateWith(undefined, undefined)
    const r3 = await runCliCaptured(['restore', b, '--yes', '--state-dir', bare])
    expect(r3.code).toBe(0)
    expect(r3.err).toContain('the backup left out models.providers.mock.apiKey and this installation has none to keep: set it again')
    const restored = cfgOf(bare)
    expect(restored.models.providers.mock.apiKey).toBeUndefined()
    expect(restored.gateway?.auth?.token).toBeUndefined()
    expect(fs.readFileSync(path.join(bare, 'loopdesk.json'), 'utf8')).not.toContain('__REDACTED__')
  })

  it('a hand-annotated loopdesk.json keeps its comments through a backup and a restore that swap its secrets', async () => {
    const base = JSON.parse(fs.readFileSync(path.join(source, 'loopdesk.json'), 'utf8')) as { models: { providers: { mock: Record<string, unknown> } } }
    const annotated = (apiKey: string) =>
      `// my Loopdesk setup\n${JSON.stringify({ ...base, models: { ...base.models, providers: { ...base.models.providers, mock: { ...base.models.providers.mock, apiKey } } } }, null, 2).replace('"models": {', '/* the scripted model */\n  "models": {')}\n`
    const old = path.join(tempDir('loopdesk-restore-cmt-'), 'state')
    fs.cpSync(source, old, { recursive: true })
    fs.writeFileSync(path.join(old, 'loopdesk.json'), annotated('sk-old-key'), { mode: 0o600 })
    const b = path.join(tempDir('loopdesk-restore-cmtb-'), 'b')
    expect((await runCliCaptured(['backup', b, '--state-dir', old])).code).toBe(0)
    const copy = fs.readFileSync(path.join(b, 'loopdesk.json'), 'utf8')
    expect(copy).not.toContain('sk-old-key')
    expect(copy).toContain('"apiKey": "__REDACTED__"')
    expect(copy).toContain('// my Loopdesk setup\n')
    expect(copy).toContain('/* the scripted model */\n')

    const now = path.join(tempDir('loopdesk-restore-cmt-'), 'state')
    fs.cpSync(source, now, { recursive: true })
    fs.writeFileSync(path.join(now, 'loopdesk.json'), annotated('sk-new-key'), { mode: 0o600 })
    expect((await runCliCaptured(['restore', b, '--yes', '--state-dir', now])).code).toBe(0)
    const restored = fs.readFileSync(path.join(now, 'loopdesk.json'), 'utf8')
    expect(restored).toContain('"apiKey": "sk-new-key"')
    expect(restored).toContain('// my Loopdesk setup\n')
    expect(restored).toContain('/* the scripted model */\n')
  })

  it.skipIf(process.platform === 'win32')('FIFOs under the names it reads (a lock, a journal, the config, the manifest) are refused, not waited on', async () => {
    const state = await laterState()
    const sessions = path.join(state, 'agents', 'main', 'sessions')
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
    const planted: string[] = []
    const fifo = (file: string) => {
      fs.rmSync(file, { force: true })
      execFileSync('mkfifo', [file])
      planted.push(file)
    }
    try {
      // a plain read of any of these waited in open() for a writer: the restore hung for good
      fifo(path.join(sessions, 'sessions.json.lock'))
      fifo(path.join(sessions, `accepted.${other.pid}-abcd1234.jsonl`)) // a live pid: its journal is read
      fifo(path.join(state, 'loopdesk.json'))
      const r = await runCliCaptured(['restore', backup, '--yes', '--state-dir', state])
      expect(r.code, r.err).toBe(0)
      expect(fs.statSync(path.join(state, 'loopdesk.json')).isFile()).toBe(true)
      const b = path.join(tempDir('loopdesk-restore-fifo-'), 'b')
      fs.cpSync(backup, b, { recursive: true })
      fifo(path.join(b, 'loopdesk-backup.json'))
      const r2 = await runCliCaptured(['restore', b, '--state-dir', state])
      expect(r2.code).toBe(1)
      expect(r2.err).toMatch(/loopdesk-backup\.json cannot be read: not a regular file/)
    } finally {
      other.kill('SIGKILL')
      // what a plain open would still be parked in gets its writer (the test's cleanup, should the check fail)
      for (const f of planted) if (fs.existsSync(f)) fs.closeSync(fs.openSync(f, fs.constants.O_RDWR | fs.constants.O_NONBLOCK))
    }
  })

  it('a failure half-way moves everything back: the state dir is as it was, and no folders are left behind', async () => {
    const state = await laterState()
    const before = snapshot(state)
    const plan = await planRestore(backup, state)
    // fails on the second move of a staged entry into the state dir, after the current data moved aside
    const failing = () => {
      let renames = 0
      return {
        rename(from: string, to: string) {
          if (from.startsWith(plan.staging) && ++renames === 2) throw new Error('disk trouble (injected)')
          fs.renameSync(from, to)
        },
      }
    }
    expect(() => applyRestore(plan, failing())).toThrow(CliError)
    expect(() => applyRestore(plan, failing())).toThrow(/restore failed \(disk trouble \(injected\)\); the state dir is as it was/)
    expect(snapshot(state)).toEqual(before)
    expect(fs.readdirSync(path.dirname(state))).toEqual(['state'])
  })
})
