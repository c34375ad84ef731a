// The hard-link check on its own: which multiply-linked files it refuses (a fenced folder's, ~/.ssh's) and which
// it leaves alone (links between the workspace's own files, also when the workspace sits inside the state dir).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Stats } from 'node:fs'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { LinkedSecretError, linkWalkCount, refuseLinkedSecret } from './linked-secrets'

let base: string
let home: string | undefined
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ld-links-')))
  home = process.env.HOME
})
afterEach(() => {
  vi.restoreAllMocks()
  process.env.HOME = home
  fs.rmSync(base, { recursive: true, force: true })
})

function tree(files: Record<string, string>) {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(base, rel)), { recursive: true })
    fs.writeFileSync(path.join(base, rel), text)
  }
}

it("refuses a link to the state dir's token and to ~/.ssh's key, not links among the workspace's own files", async () => {
  process.env.HOME = path.join(base, 'home')
  tree({ 'state/gateway/token': 't', 'home/.ssh/id_ed25519': 'k', 'state/workspace/store/a.js': 'a', 'elsewhere/b.js': 'b' })
  const ws = path.join(base, 'state', 'workspace')
  fs.linkSync(path.join(base, 'state/gateway/token'), path.join(ws, 'token'))
  fs.linkSync(path.join(base, 'home/.ssh/id_ed25519'), path.join(ws, 'key'))
  // pnpm-style: the workspace's store linked into its node_modules, and a link to a file outside every fence
  fs.mkdirSync(path.join(ws, 'node_modules'))
  fs.linkSync(path.join(ws, 'store/a.js'), path.join(ws, 'node_modules/a.js'))
  fs.linkSync(path.join(base, 'elsewhere/b.js'), path.join(ws, 'node_modules/b.js'))
  const dirs = [{ dir: path.join(base, 'state'), what: 'state' as const }]
  const check = (rel: string) => refuseLinkedSecret(fs.statSync(path.join(ws, rel)), rel, ws, dirs)
  await expect(check('token')).rejects.toThrow(LinkedSecretError)
  await expect(check('token')).rejects.toThrow(/hard link to a file in Loopdesk's state folder/)
  await expect(check('key')).rejects.toThrow(/your SSH folder/)
  await expect(check('node_modules/a.js')).resolves.toBeUndefined()
  await expect(check('store/a.js')).resolves.toBeUndefined()
  await expect(check('node_modules/b.js')).resolves.toBeUndefined()
})

/**
 * The check's clock driven by the test: Date.now() reads `clock.now` (walks record it as their start), and a
 * file's ctime is set in its Stats — the kernel's ctime comes from another, coarser clock the test cannot drive.
 */
const clock = { now: 0 }
function driveClock(now: number): void {
  clock.now = now
  vi.spyOn(Date, 'now').mockImplementation(() => clock.now)
}
function withCtime(st: Stats, ctimeMs: number): Stats {
  return Object.assign(Object.create(Object.getPrototypeOf(st) as object) as Stats, st, { ctimeMs })
}
/** A whole second plus 300 ms on the driven clock. */
const T0 = 1_800_000_000_300

it("one walk of a folder serves every workspace's fence set: ten agents alternating walk the state dir once", async () => {
  process.env.HOME = path.join(base, 'home')
  const names = Array.from({ length: 10 }, (_, i) => `w${i}`)
  tree({ 'state/gateway/token': 't', ...Object.fromEntries(names.map((w) => [`${w}/x`, ''])) })
  const dirs = [{ dir: path.join(base, 'state'), what: 'state' as const }]
  // linked just now: the walk that follows speaks for them all the same, as it holds the token's inode
  for (const w of names) fs.linkSync(path.join(base, 'state/gateway/token'), path.join(base, w, 'token'))
  const before = linkWalkCount()
  for (let i = 0; i < 3; i++) {
    for (const w of names) {
      const ws = path.join(base, w)
      await expect(refuseLinkedSecret(fs.statSync(path.join(ws, 'token')), 'token', ws, dirs)).rejects.toThrow(LinkedSecretError)
    }
  }
  // one inventory per folder, shared (one per workspace's fence set walked 10 times, and again past the LRU's 8)
  expect(linkWalkCount() - before).toBe(1)
})

function linkedFixture() {
  process.env.HOME = path.join(base, 'home')
  tree({ 'state/gateway/token': 't', 'ws/x': '', 'elsewhere/lib.js': 'l' })
  const ws = path.join(base, 'ws')
  const dirs = [{ dir: path.join(base, 'state'), what: 'state' as const }]
  fs.linkSync(path.join(base, 'elsewhere/lib.js'), path.join(ws, 'lib.js'))
  const check = (rel: string, ctimeMs: number) => refuseLinkedSecret(withCtime(fs.statSync(path.join(ws, rel)), ctimeMs), rel, ws, dirs)
  return { ws, check }
}

it("a hard link made after a walk to a file the walk saw is refused by that walk, whatever the file's ctime says", async () => {
  const { ws, check } = linkedFixture()
  driveClock(T0)
  // an ordinary multiply-linked file opened first: the state dir is walked while its token has one link
  await expect(check('lib.js', T0 - 10_000)).resolves.toBeUndefined()
  fs.linkSync(path.join(base, 'state/gateway/token'), path.join(ws, 'token'))
  // the link's ctime read from a clock that lagged a second (a loaded VM's coarse clock, a whole-second file
  // system): by time alone the walk would speak for it; it saw the token's inode, so it refuses it
  clock.now = T0 + 100
  const before = linkWalkCount()
  await expect(check('token', T0 - 1_000)).rejects.toThrow(/Loopdesk's state folder/)
  await expect(check('token', T0 + 50)).rejects.toThrow(LinkedSecretError)
  expect(linkWalkCount() - before).toBe(0)
})

it('a file made in a fenced folder after a walk and linked is judged by a new walk; then the cached one serves until 2 s', async () => {
  const { ws, check } = linkedFixture()
  driveClock(T0)
  await expect(check('lib.js', T0 - 10_000)).resolves.toBeUndefined()
  // a new token (as a rotation writes it: a new inode), linked 10 ms after the walk started
  fs.writeFileSync(path.join(base, 'state/gateway/token.tmp'), 'new')
  fs.renameSync(path.join(base, 'state/gateway/token.tmp'), path.join(base, 'state/gateway/token'))
  fs.linkSync(path.join(base, 'state/gateway/token'), path.join(ws, 'token'))
  clock.now = T0 + 20
  let before = linkWalkCount()
  await expect(check('token', T0 + 10)).rejects.toThrow(/Loopdesk's state folder/)
  expect(linkWalkCount() - before).toBe(1)
  // that walk started after both files' ctime: it judges them, no walk per open
  clock.now = T0 + 1_900
  before = linkWalkCount()
  await expect(check('token', T0 + 10)).rejects.toThrow(LinkedSecretError)
  await expect(check('lib.js', T0 - 10_000)).resolves.toBeUndefined()
  expect(linkWalkCount() - before).toBe(0)
  // past its 2 s it speaks for nothing
  clock.now = T0 + 2_100
  await expect(check('lib.js', T0 - 10_000)).resolves.toBeUndefined()
  expect(linkWalkCount() - before).toBe(1)
})

it('a whole-second ctime (a 1 s or 2 s file system clock) may be up to 2 s late: a walk within it does not speak for the file', async () => {
  const { ws, check } = linkedFixture()
  driveClock(T0) // 300 ms into a second
  await expect(check('lib.js', T0 - 10_000)).resolves.toBeUndefined()
  fs.writeFileSync(path.join(base, 'state/new-key'), 'k')
  fs.linkSync(path.join(base, 'state/new-key'), path.join(ws, 'key'))
  // made 100 ms after the walk started; its ctime reads the second it began in, 300 ms before the walk
  clock.now = T0 + 200
  const before = linkWalkCount()
  await expect(check('key', T0 - 300)).rejects.toThrow(/Loopdesk's state folder/)
  expect(linkWalkCount() - before).toBe(1)
})

it("refuses links to the user's credential files and folders (~/.aws, ~/.netrc, ~/.config/gh/hosts.yml, …); missing ones cost nothing", async () => {
  process.env.HOME = path.join(base, 'home')
  tree({
    'home/.aws/credentials': 'aws_secret_access_key=x',
    'home/.netrc': 'machine example.com password p',
    'home/.config/gh/hosts.yml': 'oauth_token: t',
    'home/.docker/config.json': '{"auths":{}}',
    'home/.config/other.txt': 'fine',
    'ws/x': '',
  })
  const ws = path.join(base, 'ws')
  const link = (from: string, to: string) => fs.linkSync(path.join(base, 'home', from), path.join(ws, to))
  link('.aws/credentials', 'aws')
  link('.netrc', 'netrc')
  link('.config/gh/hosts.yml', 'gh')
  link('.docker/config.json', 'docker')
  link('.config/other.txt', 'other')
  const check = (rel: string) => refuseLinkedSecret(fs.statSync(path.join(ws, rel)), rel, ws, [])
  await expect(check('aws')).rejects.toThrow(/your AWS credentials \(~\/\.aws\)/)
  await expect(check('netrc')).rejects.toThrow(/~\/\.netrc/)
  await expect(check('gh')).rejects.toThrow(/GitHub CLI/)
  await expect(check('docker')).rejects.toThrow(/Docker/)
  // a file beside them in ~/.config is no credential
  await expect(check('other')).resolves.toBeUndefined()
})

it('a check during a running walk waits for it (refused, not passed) and shares it; the walk leaves the event loop free', async () => {
  process.env.HOME = path.join(base, 'home')
  // many files ahead of the token in the breadth-first walk, so the walk takes a while
  for (let j = 0; j < 20; j++) {
    const sub = path.join(base, 'state', 'agents', `d${j}`)
    fs.mkdirSync(sub, { recursive: true })
    for (let i = 0; i < 100; i++) fs.writeFileSync(path.join(sub, `f${i}`), '')
  }
  tree({ 'state/agents/d0/deep/deeper/token': 't', 'ws/x': '' })
  const ws = path.join(base, 'ws')
  fs.linkSync(path.join(base, 'state/agents/d0/deep/deeper/token'), path.join(ws, 'token'))
  const dirs = [{ dir: path.join(base, 'state'), what: 'state' as const }]
  // linked just now: the second check waits for the first one's walk, which holds the token's inode
  const st = fs.statSync(path.join(ws, 'token'))
  const before = linkWalkCount()
  let first: 'refused' | 'passed' | undefined
  const p1 = refuseLinkedSecret(st, 'token', ws, dirs).then(() => (first = 'passed'), () => (first = 'refused'))
  // the event loop turns while the first walk runs (a synchronous walk would be done before any turn)
  await new Promise((r) => setImmediate(r))
  expect(first).toBeUndefined()
  const second = refuseLinkedSecret(st, 'token', ws, dirs)
  await expect(second).rejects.toThrow(/hard link to a file in Loopdesk's state folder/)
  await p1
  expect(first).toBe('refused')
  expect(linkWalkCount() - before).toBe(1)
})

it('walks a state dir that is a symlink where it points', async () => {
  process.env.HOME = path.join(base, 'home')
  tree({ 'real-state/gateway/token': 't', 'ws/x': '' })
  fs.symlinkSync(path.join(base, 'real-state'), path.join(base, 'state'))
  const ws = path.join(base, 'ws')
  fs.linkSync(path.join(base, 'real-state/gateway/token'), path.join(ws, 'token'))
  const dirs = [{ dir: path.join(base, 'state'), what: 'state' as const }]
  await expect(refuseLinkedSecret(fs.statSync(path.join(ws, 'token')), 'token', ws, dirs)).rejects.toThrow(LinkedSecretError)
})
