import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { commandEnv } from './exec-env'
import { withGitBareRepoGuard } from './git-bare-guard'

const hasGit = spawnSync('git', ['--version']).status === 0

describe('withGitBareRepoGuard', () => {
  it('adds safe.bareRepository=explicit after the entries the user set', () => {
    expect(withGitBareRepoGuard({ PATH: '/bin' })).toMatchObject({
      PATH: '/bin',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'safe.bareRepository',
      GIT_CONFIG_VALUE_0: 'explicit',
    })
    const out = withGitBareRepoGuard({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'me' })
    expect(out).toMatchObject({ GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_KEY_1: 'safe.bareRepository' })
    expect(withGitBareRepoGuard({ GIT_CONFIG_COUNT: 'x' })).toMatchObject({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'safe.bareRepository' })
  })
})

describe.skipIf(!hasGit)('a workspace the model made into a bare repository', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
  })

  // what the write tool lets a model create: no `.git`, only HEAD, config, objects/, refs/ at the root
  function plantBareRepo(): { ws: string; marker: string } {
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-bare-'))
    dirs.push(ws)
    const marker = path.join(ws, '..', `${path.basename(ws)}-ran`)
    dirs.push(marker)
    fs.writeFileSync(path.join(ws, 'HEAD'), 'ref: refs/heads/main\n')
    fs.writeFileSync(
      path.join(ws, 'config'),
      `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = "touch '${marker}'; false"\n`,
    )
    fs.mkdirSync(path.join(ws, 'objects', 'info'), { recursive: true })
    fs.mkdirSync(path.join(ws, 'refs', 'heads'), { recursive: true })
    return { ws, marker }
  }

  it('git status under the exec environment does not run the planted config', () => {
    const { ws, marker } = plantBareRepo()
    spawnSync('git', ['status', '--short'], { cwd: ws, env: commandEnv(process.env) })
    expect(fs.existsSync(marker)).toBe(false)
  })

  it('(control) without the guard the same git status runs it', () => {
    const { ws, marker } = plantBareRepo()
    const env = commandEnv(process.env)
    for (const k of Object.keys(env)) if (k.startsWith('GIT_CONFIG_')) delete env[k]
    spawnSync('git', ['status', '--short'], { cwd: ws, env })
    expect(fs.existsSync(marker)).toBe(true)
  })
})
