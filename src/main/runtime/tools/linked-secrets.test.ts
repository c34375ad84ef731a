// The hard-link check on its own: which multiply-linked files it refuses (a fenced folder's, ~/.ssh's) and which
// it leaves alone (links between the workspace's own files, also when the workspace sits inside the state dir).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { LinkedSecretError, refuseLinkedSecret } from './linked-secrets'

let base: string
let home: string | undefined
beforeEach(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ld-links-')))
  home = process.env.HOME
})
afterEach(() => {
  process.env.HOME = home
  fs.rmSync(base, { recursive: true, force: true })
})

function tree(files: Record<string, string>) {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(base, rel)), { recursive: true })
    fs.writeFileSync(path.join(base, rel), text)
  }
}

it("refuses a link to the state dir's token and to ~/.ssh's key, not links among the workspace's own files", () => {
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
  const check = (rel: string) => () => refuseLinkedSecret(fs.statSync(path.join(ws, rel)), rel, ws, dirs)
  expect(check('token')).toThrow(LinkedSecretError)
  expect(check('token')).toThrow(/hard link to a file in Loopdesk's state folder/)
  expect(check('key')).toThrow(/your SSH folder/)
  expect(check('node_modules/a.js')).not.toThrow()
  expect(check('store/a.js')).not.toThrow()
  expect(check('node_modules/b.js')).not.toThrow()
})
