import { execFileSync } from 'node:child_process'
import { constants as C, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { atomicWriteConfined } from './atomic-write'
import { openConfined, resolveInWorkspace, WorkspaceEscapeError } from './paths'
import { makeCtx, makeSandbox, run, textOf, type Sandbox } from './test-helpers'

let sb: Sandbox
beforeEach(() => {
  sb = makeSandbox()
  writeFileSync(path.join(sb.outside, 'secret.txt'), 'TOP SECRET\n')
  writeFileSync(path.join(sb.ws, 'ok.txt'), 'fine\n')
})
afterEach(() => sb.cleanup())

const DENIED = /Access denied|outside the workspace|Loopdesk's own state folder|desktop app's data folder|Loopdesk's own config file/

describe('resolveInWorkspace', () => {
  it('accepts relative and absolute paths inside the workspace', async () => {
    const a = await resolveInWorkspace(sb.ws, 'ok.txt')
    expect(a.abs).toBe(path.join(sb.ws, 'ok.txt'))
    expect(a.rel).toBe('ok.txt')
    const b = await resolveInWorkspace(sb.ws, path.join(sb.ws, 'ok.txt'))
    expect(b.rel).toBe('ok.txt')
    expect((await resolveInWorkspace(sb.ws, undefined)).rel).toBe('.')
  })

  it('refuses ../ escapes, including ones hidden mid-path', async () => {
    await expect(resolveInWorkspace(sb.ws, '../outside/secret.txt')).rejects.toThrow(DENIED)
    await expect(resolveInWorkspace(sb.ws, 'a/../../outside/secret.txt')).rejects.toThrow(DENIED)
    await expect(resolveInWorkspace(sb.ws, '..')).rejects.toThrow(DENIED)
    await expect(resolveInWorkspace(sb.ws, '../ws-evil/new.txt', { allowMissing: true })).rejects.toThrow(DENIED)
  })

  it('on Windows refuses a UNC or device path before touching it (realpath would connect to the server)', async () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!
    Object.defineProperty(process, 'platform', { value: 'win32' })
    try {
      for (const p of ['\\\\attacker.example\\share\\x', '//attacker.example/share/x', '\\\\.\\COM1', '\\\\?\\C:\\x']) {
        await expect(resolveInWorkspace(sb.ws, p)).rejects.toThrow(/is a network or device path/)
      }
    } finally {
      Object.defineProperty(process, 'platform', platform)
    }
  })

  it('refuses absolute paths outside the workspace', async () => {
    await expect(resolveInWorkspace(sb.ws, '/etc/passwd')).rejects.toThrow(DENIED)
    await expect(resolveInWorkspace(sb.ws, path.join(sb.outside, 'new.txt'), { allowMissing: true })).rejects.toThrow(DENIED)
  })

  it('refuses a sibling directory whose name starts with the workspace name', async () => {
    mkdirSync(sb.ws + '2')
    writeFileSync(sb.ws + '2/x', 'x')
    await expect(resolveInWorkspace(sb.ws, sb.ws + '2/x')).rejects.toThrow(DENIED)
  })

  it('refuses symlinks (file, dir, nested dir, dangling) that lead outside', async () => {
    symlinkSync(path.join(sb.outside, 'secret.txt'), path.join(sb.ws, 'link.txt'))
    symlinkSync(sb.outside, path.join(sb.ws, 'linkdir'))
    symlinkSync(path.join(sb.outside, 'nothing-yet'), path.join(sb.ws, 'dangling'))
    await expect(resolveInWorkspace(sb.ws, 'link.txt')).rejects.toThrow(/through a symlink/)
    await expect(resolveInWorkspace(sb.ws, 'linkdir/secret.txt')).rejects.toThrow(DENIED)
    await expect(resolveInWorkspace(sb.ws, 'linkdir/new/deeper.txt', { allowMissing: true })).rejects.toThrow(DENIED)
    await expect(resolveInWorkspace(sb.ws, 'dangling', { allowMissing: true })).rejects.toThrow(DENIED)
  })

  it('allows symlinks that stay inside the workspace', async () => {
    mkdirSync(path.join(sb.ws, 'real'))
    writeFileSync(path.join(sb.ws, 'real', 'f.txt'), 'inside')
    symlinkSync(path.join(sb.ws, 'real'), path.join(sb.ws, 'alias'))
    const r = await resolveInWorkspace(sb.ws, 'alias/f.txt')
    expect(r.rel).toBe(path.join('real', 'f.txt'))
  })

  it('works when the workspace path itself goes through a symlink', async () => {
    symlinkSync(sb.ws, path.join(sb.base, 'ws-link'))
    const viaLink = path.join(sb.base, 'ws-link')
    expect((await resolveInWorkspace(viaLink, 'ok.txt')).abs).toBe(path.join(sb.ws, 'ok.txt'))
    expect((await resolveInWorkspace(viaLink, path.join(viaLink, 'ok.txt'))).rel).toBe('ok.txt')
    await expect(resolveInWorkspace(viaLink, '../outside/secret.txt')).rejects.toThrow(DENIED)
  })

  it('gives clear errors for missing files, ~ and missing workspaces', async () => {
    await expect(resolveInWorkspace(sb.ws, 'nope.txt')).rejects.toThrow(/File not found/)
    await expect(resolveInWorkspace(sb.ws, '~/x')).rejects.toThrow(/not expanded/)
    await expect(resolveInWorkspace(path.join(sb.base, 'gone'), 'x')).rejects.toThrow(/does not exist/)
  })
})

describe('open-time re-check (symlink swapped in after the check)', () => {
  it('refuses a file replaced by a symlink after resolution', async () => {
    const rp = await resolveInWorkspace(sb.ws, 'ok.txt')
    unlinkSync(path.join(sb.ws, 'ok.txt'))
    symlinkSync(path.join(sb.outside, 'secret.txt'), path.join(sb.ws, 'ok.txt'))
    await expect(openConfined(rp, C.O_RDONLY)).rejects.toThrow(WorkspaceEscapeError)
  })

  it('refuses when a parent directory is swapped for a symlink after resolution', async () => {
    mkdirSync(path.join(sb.ws, 'sub'))
    writeFileSync(path.join(sb.ws, 'sub', 'secret.txt'), 'harmless')
    const rp = await resolveInWorkspace(sb.ws, 'sub/secret.txt')
    renameSync(path.join(sb.ws, 'sub'), path.join(sb.ws, 'sub-old'))
    symlinkSync(sb.outside, path.join(sb.ws, 'sub'))
    await expect(openConfined(rp, C.O_RDONLY)).rejects.toThrow(/changed while opening|outside/)
  })
})

describe('write-time re-check', () => {
  it('a symlink planted at the target after the check is refused and the outside file is untouched', async () => {
    const rp = await resolveInWorkspace(sb.ws, 'new.txt', { allowMissing: true })
    symlinkSync(path.join(sb.outside, 'secret.txt'), path.join(sb.ws, 'new.txt'))
    await expect(atomicWriteConfined(rp, 'pwned')).rejects.toThrow(WorkspaceEscapeError)
    expect(readFileSync(path.join(sb.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n')
  })

  it('a parent dir swapped for an outside symlink after the check is refused', async () => {
    mkdirSync(path.join(sb.ws, 'sub'))
    const rp = await resolveInWorkspace(sb.ws, 'sub/out.txt', { allowMissing: true })
    renameSync(path.join(sb.ws, 'sub'), path.join(sb.ws, 'sub-old'))
    symlinkSync(sb.outside, path.join(sb.ws, 'sub'))
    await expect(atomicWriteConfined(rp, 'pwned')).rejects.toThrow(WorkspaceEscapeError)
    expect(existsSync(path.join(sb.outside, 'out.txt'))).toBe(false)
    expect(readdirSync(sb.outside)).toEqual(['secret.txt']) // no temp file left behind either
  })
})

describe('tools refuse escapes', () => {
  it('read / edit / ls / grep / glob refuse ../, absolute and symlinked targets', async () => {
    const ctx = makeCtx(sb.ws)
    symlinkSync(path.join(sb.outside, 'secret.txt'), path.join(sb.ws, 'link.txt'))
    symlinkSync(sb.outside, path.join(sb.ws, 'linkdir'))
    await expect(run(ctx, 'read', { path: '../outside/secret.txt' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'read', { path: path.join(sb.outside, 'secret.txt') })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'read', { path: 'link.txt' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'read', { path: 'linkdir/secret.txt' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'edit', { path: 'link.txt', oldText: 'TOP', newText: 'X' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'ls', { path: 'linkdir' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'ls', { path: '..' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'grep', { pattern: 'SECRET', path: 'linkdir' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'glob', { pattern: '*', path: '../outside' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'glob', { pattern: '../outside/*' })).rejects.toThrow(/must not contain/)
    await expect(run(ctx, 'glob', { pattern: 'linkdir/*' })).rejects.toThrow(DENIED)
    expect(readFileSync(path.join(sb.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n')
  })

  it('a workspace-wide grep does not follow a symlinked dir out of the workspace', async () => {
    const ctx = makeCtx(sb.ws)
    symlinkSync(sb.outside, path.join(sb.ws, 'linkdir'))
    symlinkSync(path.join(sb.outside, 'secret.txt'), path.join(sb.ws, 'link.txt'))
    const r = await run(ctx, 'grep', { pattern: 'SECRET' })
    expect(textOf(r)).toMatch(/No matches/)
  })

  it('write refuses every escape and leaves the outside untouched', async () => {
    const ctx = makeCtx(sb.ws)
    symlinkSync(path.join(sb.outside, 'secret.txt'), path.join(sb.ws, 'link.txt'))
    symlinkSync(sb.outside, path.join(sb.ws, 'linkdir'))
    symlinkSync(path.join(sb.outside, 'planted.txt'), path.join(sb.ws, 'dangling.txt'))
    await expect(run(ctx, 'write', { path: '../outside/new.txt', content: 'x' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'write', { path: path.join(sb.outside, 'abs.txt'), content: 'x' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'write', { path: 'link.txt', content: 'pwned' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'write', { path: 'linkdir/new.txt', content: 'x' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'write', { path: 'linkdir/deep/er/new.txt', content: 'x' })).rejects.toThrow(DENIED)
    await expect(run(ctx, 'write', { path: 'dangling.txt', content: 'x' })).rejects.toThrow(DENIED)
    expect(readFileSync(path.join(sb.outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n')
    for (const f of ['new.txt', 'abs.txt', 'deep', 'planted.txt']) expect(existsSync(path.join(sb.outside, f))).toBe(false)
  })

  it('exec runs in the real workspace directory', async () => {
    const ctx = makeCtx(sb.ws, { execAllowlist: ['pwd'] })
    const r = await run(ctx, 'exec', { command: 'pwd' })
    expect(textOf(r).trim()).toBe(sb.ws)
    rmSync(path.join(sb.ws, 'ok.txt'))
  })
})

describe("Loopdesk's state dir inside the workspace (a workspace set to the home folder holds ~/.loopdesk)", () => {
  // base/ is the workspace here; base/state is the state dir, base/state/workspace would be the default workspace
  let state: string
  beforeEach(() => {
    state = path.join(sb.base, 'state')
    mkdirSync(path.join(state, 'gateway'), { recursive: true })
    writeFileSync(path.join(state, 'loopdesk.json'), '{"tools":{"exec":{"allowlist":[]}}}\n')
    writeFileSync(path.join(state, 'gateway', 'token'), 'GATEWAY-TOKEN-123\n')
    writeFileSync(path.join(state, 'credentials.json'), '{"openai":"sk-SECRET-KEY"}\n')
  })
  const FENCED = /Loopdesk's own state folder/

  it('file tools refuse it: no config write (exec allowlist, plugins, hooks), no reading keys or tokens', async () => {
    const ctx = makeCtx(sb.base, { stateDir: state })
    await expect(run(ctx, 'write', { path: 'state/loopdesk.json', content: '{"tools":{"exec":{"allowlist":["*"]}}}' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'write', { path: 'state/plugins/evil/index.js', content: 'x' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'write', { path: path.join(state, 'hooks', 'h', 'handler.mjs'), content: 'x' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'edit', { path: 'state/loopdesk.json', oldText: '[]', newText: '["*"]' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'read', { path: 'state/credentials.json' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'read', { path: 'ws/../state/gateway/token' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'ls', { path: 'state' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'grep', { pattern: 'TOKEN', path: 'state' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'glob', { pattern: 'state/**' })).rejects.toThrow(FENCED)
    // through a symlink inside the workspace too
    symlinkSync(state, path.join(sb.ws, 'st'))
    await expect(run(ctx, 'read', { path: 'ws/st/credentials.json' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'write', { path: 'ws/st/loopdesk.json', content: '{}' })).rejects.toThrow(FENCED)
    expect(readFileSync(path.join(state, 'loopdesk.json'), 'utf8')).toBe('{"tools":{"exec":{"allowlist":[]}}}\n')
    expect(existsSync(path.join(state, 'plugins'))).toBe(false)
    expect(existsSync(path.join(state, 'hooks'))).toBe(false)
  })

  it('workspace-wide grep and glob pass over it; the rest of the workspace still works', async () => {
    const ctx = makeCtx(sb.base, { stateDir: state })
    writeFileSync(path.join(sb.ws, 'notes.txt'), 'my TOKEN notes\n')
    expect(textOf(await run(ctx, 'grep', { pattern: 'TOKEN|SECRET' })).split('\n')).toEqual(['outside/secret.txt:1: TOP SECRET', 'ws/notes.txt:1: my TOKEN notes'])
    const globbed = textOf(await run(ctx, 'glob', { pattern: '**/*' }))
    expect(globbed).not.toMatch(/state/)
    expect(globbed).toMatch(/ws\/notes\.txt/)
    expect(textOf(await run(ctx, 'ls', {}))).toMatch(/^state\/$/m) // the listing of its parent may name it
    await run(ctx, 'write', { path: 'ws/new.txt', content: 'ok' })
    expect(textOf(await run(ctx, 'read', { path: 'ws/new.txt' }))).toBe('ok')
  })

  it('a workspace inside the state dir (the default) is not affected, nor one beside it', async () => {
    const inner = path.join(state, 'workspace')
    mkdirSync(inner)
    const ctx = makeCtx(inner, { stateDir: state })
    await run(ctx, 'write', { path: 'a.txt', content: 'inside' })
    expect(textOf(await run(ctx, 'read', { path: 'a.txt' }))).toBe('inside')
    await expect(run(ctx, 'read', { path: '../credentials.json' })).rejects.toThrow(DENIED)
    const beside = makeCtx(sb.ws, { stateDir: state })
    expect(textOf(await run(beside, 'read', { path: 'ok.txt' }))).toBe('fine')
  })

  it("read (only) reaches the attachments folder, whose saved paths the prompt names — from any workspace", async () => {
    const inbound = path.join(state, 'media', 'inbound')
    mkdirSync(inbound, { recursive: true })
    const file = path.join(inbound, '0b1c2d3e-0000-4000-8000-000000000000.txt')
    writeFileSync(file, 'attached notes\n')
    symlinkSync(path.join(state, 'credentials.json'), path.join(inbound, 'link.txt'))
    mkdirSync(path.join(state, 'workspace'))
    for (const ws of [sb.base, path.join(state, 'workspace'), sb.ws]) {
      const ctx = makeCtx(ws, { stateDir: state })
      expect(textOf(await run(ctx, 'read', { path: file }))).toBe('attached notes')
      await expect(run(ctx, 'read', { path: path.join(inbound, 'link.txt') })).rejects.toThrow(DENIED)
      await expect(run(ctx, 'read', { path: path.join(inbound, 'missing.txt') })).rejects.toThrow(DENIED)
      await expect(run(ctx, 'read', { path: path.join(inbound, '..', '..', 'credentials.json') })).rejects.toThrow(DENIED)
      await expect(run(ctx, 'write', { path: file, content: 'x' })).rejects.toThrow(DENIED)
      await expect(run(ctx, 'edit', { path: file, oldText: 'attached', newText: 'x' })).rejects.toThrow(DENIED)
      await expect(run(ctx, 'ls', { path: inbound })).rejects.toThrow(DENIED)
    }
    expect(readFileSync(file, 'utf8')).toBe('attached notes\n')
    // without a state dir (no runtime), nothing beyond the workspace
    await expect(run(makeCtx(sb.ws), 'read', { path: file })).rejects.toThrow(DENIED)
  })

  it('a workspace that is the state dir itself serves nothing', async () => {
    const ctx = makeCtx(state, { stateDir: state })
    await expect(run(ctx, 'read', { path: 'loopdesk.json' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'write', { path: 'notes.txt', content: 'x' })).rejects.toThrow(FENCED)
    await expect(run(ctx, 'ls', {})).rejects.toThrow(FENCED)
  })
})

describe("the desktop app's data folder (Electron userData, ~/.config/loopdesk) inside the workspace", () => {
  // base/ is the workspace (a home folder); base/config/loopdesk is userData: the window settings and the provider
  // keys stored with safeStorage
  let userData: string
  beforeEach(() => {
    userData = path.join(sb.base, 'config', 'loopdesk')
    mkdirSync(userData, { recursive: true })
    writeFileSync(path.join(userData, 'credentials.json'), '{"openai":"v10-SAFESTORAGE-KEY"}\n')
    writeFileSync(path.join(userData, 'config.json'), '{"theme":"dark"}\n')
  })
  const APP = /the Loopdesk desktop app's data folder/
  const STATE = /Loopdesk's own state folder/

  it('read, write, edit and ls refuse it, directly and through a symlink', async () => {
    const ctx = makeCtx(sb.base, { userDataDir: userData })
    await expect(run(ctx, 'read', { path: 'config/loopdesk/credentials.json' })).rejects.toThrow(APP)
    await expect(run(ctx, 'read', { path: path.join(userData, 'config.json') })).rejects.toThrow(APP)
    await expect(run(ctx, 'write', { path: 'config/loopdesk/config.json', content: '{}' })).rejects.toThrow(APP)
    await expect(run(ctx, 'write', { path: 'config/loopdesk/new/file.txt', content: 'x' })).rejects.toThrow(APP)
    await expect(run(ctx, 'edit', { path: 'config/loopdesk/config.json', oldText: 'dark', newText: 'light' })).rejects.toThrow(APP)
    await expect(run(ctx, 'ls', { path: 'config/loopdesk' })).rejects.toThrow(APP)
    symlinkSync(userData, path.join(sb.ws, 'ud'))
    await expect(run(ctx, 'read', { path: 'ws/ud/credentials.json' })).rejects.toThrow(APP)
    await expect(run(ctx, 'write', { path: 'ws/ud/config.json', content: '{}' })).rejects.toThrow(APP)
    expect(readFileSync(path.join(userData, 'config.json'), 'utf8')).toBe('{"theme":"dark"}\n')
    expect(existsSync(path.join(userData, 'new'))).toBe(false)
    // the message names the folder for what it is, and the rest of the workspace still works
    await expect(run(ctx, 'read', { path: 'config/loopdesk/config.json' })).rejects.toThrow(/window settings and stored provider keys/)
    expect(textOf(await run(ctx, 'read', { path: 'ws/ok.txt' }))).toBe('fine')
    // the headless gateway and CLI name no such folder: their tools see a plain folder
    expect(textOf(await run(makeCtx(sb.base), 'read', { path: 'config/loopdesk/config.json' }))).toBe('{"theme":"dark"}')
  })

  it('workspace-wide grep and glob pass over it; aimed at it they are refused', async () => {
    const ctx = makeCtx(sb.base, { userDataDir: userData })
    writeFileSync(path.join(sb.ws, 'notes.txt'), 'my KEY notes\n')
    expect(textOf(await run(ctx, 'grep', { pattern: 'KEY' })).split('\n')).toEqual(['ws/notes.txt:1: my KEY notes'])
    const globbed = textOf(await run(ctx, 'glob', { pattern: '**/*' }))
    expect(globbed).not.toMatch(/loopdesk/)
    expect(globbed).toMatch(/^config\/$/m) // its parent is an ordinary folder
    await expect(run(ctx, 'grep', { pattern: 'KEY', path: 'config/loopdesk' })).rejects.toThrow(APP)
    await expect(run(ctx, 'grep', { pattern: 'KEY', path: 'config/loopdesk/credentials.json' })).rejects.toThrow(APP)
    await expect(run(ctx, 'glob', { pattern: 'config/loopdesk/**' })).rejects.toThrow(APP)
    await expect(run(ctx, 'glob', { pattern: 'loopdesk/*', path: 'config' })).rejects.toThrow(APP)
  })

  it('a workspace holding the state dir too fences both, each named for what it is', async () => {
    const state = path.join(sb.base, 'state')
    mkdirSync(state)
    writeFileSync(path.join(state, 'credentials.json'), '{"openai":"sk-SECRET-KEY"}\n')
    const ctx = makeCtx(sb.base, { stateDir: state, userDataDir: userData })
    await expect(run(ctx, 'read', { path: 'state/credentials.json' })).rejects.toThrow(STATE)
    await expect(run(ctx, 'read', { path: 'config/loopdesk/credentials.json' })).rejects.toThrow(APP)
    expect(textOf(await run(ctx, 'grep', { pattern: 'KEY' }))).toMatch(/No matches/)
    expect(textOf(await run(ctx, 'glob', { pattern: '**/credentials.json' }))).toMatch(/No paths match/)
    // a state dir kept inside userData is named as the state folder (the innermost); its attachments stay readable
    const nested = path.join(userData, 'state')
    mkdirSync(path.join(nested, 'media', 'inbound'), { recursive: true })
    writeFileSync(path.join(nested, 'loopdesk.json'), '{}\n')
    const attached = path.join(nested, 'media', 'inbound', '0b1c2d3e-0000-4000-8000-000000000000.txt')
    writeFileSync(attached, 'attached notes\n')
    const inner = makeCtx(sb.base, { stateDir: nested, userDataDir: userData })
    await expect(run(inner, 'read', { path: 'config/loopdesk/state/loopdesk.json' })).rejects.toThrow(STATE)
    expect(textOf(await run(inner, 'read', { path: attached }))).toBe('attached notes')
  })

  it('is fenced by its real path: named through a symlink (LOOPDESK_USER_DATA_DIR), or not made yet under a linked parent', async () => {
    symlinkSync(userData, path.join(sb.outside, 'profile'))
    const ctx = makeCtx(sb.base, { userDataDir: path.join(sb.outside, 'profile') })
    await expect(run(ctx, 'read', { path: 'config/loopdesk/credentials.json' })).rejects.toThrow(APP)
    await expect(run(ctx, 'read', { path: 'outside/profile/credentials.json' })).rejects.toThrow(APP)
    expect(textOf(await run(ctx, 'grep', { pattern: 'KEY' }))).toMatch(/No matches/)
    // a profile the app has not created yet: a file written there now would be read by the app later
    symlinkSync(path.join(sb.base, 'config'), path.join(sb.outside, 'cfg'))
    const fresh = makeCtx(sb.base, { userDataDir: path.join(sb.outside, 'cfg', 'Fresh') })
    await expect(run(fresh, 'write', { path: 'config/Fresh/config.json', content: '{}' })).rejects.toThrow(APP)
    expect(existsSync(path.join(sb.base, 'config', 'Fresh'))).toBe(false)
  })

  it('the open-time and write-time re-checks refuse a folder swapped for a link into it', async () => {
    const privateDirs = [{ dir: userData, what: 'userData' as const }]
    mkdirSync(path.join(sb.ws, 'sub'))
    writeFileSync(path.join(sb.ws, 'sub', 'credentials.json'), 'harmless')
    const rp = await resolveInWorkspace(sb.base, 'ws/sub/credentials.json', { privateDirs })
    renameSync(path.join(sb.ws, 'sub'), path.join(sb.ws, 'sub-old'))
    symlinkSync(userData, path.join(sb.ws, 'sub'))
    await expect(openConfined(rp, C.O_RDONLY)).rejects.toThrow(APP)
    // a write's missing folders are not made inside it either
    const deep = await resolveInWorkspace(sb.base, 'ws/later/deep/x.txt', { allowMissing: true, privateDirs })
    symlinkSync(userData, path.join(sb.ws, 'later'))
    await expect(atomicWriteConfined(deep, 'x')).rejects.toThrow(APP)
    expect(existsSync(path.join(userData, 'deep'))).toBe(false)
    // nor a link planted at the target
    const target = await resolveInWorkspace(sb.base, 'ws/new.json', { allowMissing: true, privateDirs })
    symlinkSync(path.join(userData, 'config.json'), path.join(sb.ws, 'new.json'))
    await expect(atomicWriteConfined(target, '{}')).rejects.toThrow(WorkspaceEscapeError)
    expect(readFileSync(path.join(userData, 'config.json'), 'utf8')).toBe('{"theme":"dark"}\n')
  })
})

describe('a config file LOOPDESK_CONFIG_PATH keeps outside the state dir, inside the workspace', () => {
  const CONFIG = /Loopdesk's own config file/
  let config: string
  beforeEach(() => {
    config = path.join(sb.ws, 'loopdesk.json')
    writeFileSync(config, '{"tools":{"exec":{"allowlist":[]}},"gateway":{"token":"GW-SECRET"}}\n')
    writeFileSync(`${config}.bak`, '{"gateway":{"token":"GW-SECRET"}}\n')
  })

  it('read, write and edit refuse it (and its .bak); searches pass over it without failing', async () => {
    const ctx = makeCtx(sb.base, { stateDir: path.join(sb.base, 'state'), configPath: config })
    await expect(run(ctx, 'read', { path: 'ws/loopdesk.json' })).rejects.toThrow(CONFIG)
    await expect(run(ctx, 'read', { path: 'ws/loopdesk.json.bak' })).rejects.toThrow(CONFIG)
    await expect(run(ctx, 'write', { path: 'ws/loopdesk.json', content: '{"tools":{"exec":{"allowlist":["*"]}}}' })).rejects.toThrow(CONFIG)
    await expect(run(ctx, 'edit', { path: 'ws/loopdesk.json', oldText: '[]', newText: '["*"]' })).rejects.toThrow(CONFIG)
    symlinkSync(config, path.join(sb.ws, 'cfg.json'))
    await expect(run(ctx, 'read', { path: 'ws/cfg.json' })).rejects.toThrow(CONFIG)
    expect(readFileSync(config, 'utf8')).toMatch(/"allowlist":\[\]/)
    expect(textOf(await run(ctx, 'grep', { pattern: 'GW-SECRET|fine' })).split('\n')).toEqual(['ws/ok.txt:1: fine'])
    expect(textOf(await run(ctx, 'glob', { pattern: 'ws/loopdesk*' }))).toMatch(/No paths match/)
    await expect(run(ctx, 'grep', { pattern: 'GW', path: 'ws/loopdesk.json' })).rejects.toThrow(CONFIG)
    await run(ctx, 'write', { path: 'ws/other.json', content: '{}' })
    // kept in the state dir (the default), it is the state folder's
    const state = path.join(sb.base, 'state')
    mkdirSync(state)
    writeFileSync(path.join(state, 'loopdesk.json'), '{}\n')
    const inState = makeCtx(sb.base, { stateDir: state, configPath: path.join(state, 'loopdesk.json') })
    await expect(run(inState, 'read', { path: 'state/loopdesk.json' })).rejects.toThrow(/Loopdesk's own state folder/)
  })
})

describe("the user's credential locations inside the workspace (a workspace set to the home folder)", () => {
  // base/ is the home folder and the workspace: ~/.aws, ~/.netrc, ~/.ssh are in it
  let home: string | undefined
  beforeEach(() => {
    home = process.env.HOME
    process.env.HOME = sb.base
    mkdirSync(path.join(sb.base, '.aws'))
    writeFileSync(path.join(sb.base, '.aws', 'credentials'), 'aws_secret_access_key = AWS-SECRET\n')
    writeFileSync(path.join(sb.base, '.netrc'), 'machine example.com password NETRC-SECRET\n')
    mkdirSync(path.join(sb.base, '.ssh'))
    writeFileSync(path.join(sb.base, '.ssh', 'id_ed25519'), 'SSH-SECRET\n')
  })
  afterEach(() => {
    process.env.HOME = home
  })

  it('read, write, edit and ls refuse them, directly and through a symlink; searches pass over them', async () => {
    const ctx = makeCtx(sb.base)
    await expect(run(ctx, 'read', { path: '.aws/credentials' })).rejects.toThrow(/your AWS credentials/)
    await expect(run(ctx, 'read', { path: '.netrc' })).rejects.toThrow(/netrc/)
    await expect(run(ctx, 'read', { path: '.ssh/id_ed25519' })).rejects.toThrow(/your SSH folder/)
    await expect(run(ctx, 'ls', { path: '.ssh' })).rejects.toThrow(/your SSH folder/)
    await expect(run(ctx, 'write', { path: '.ssh/authorized_keys', content: 'ssh-ed25519 AAAA attacker' })).rejects.toThrow(/your SSH folder/)
    await expect(run(ctx, 'edit', { path: '.netrc', oldText: 'NETRC', newText: 'X' })).rejects.toThrow(/netrc/)
    await expect(run(ctx, 'write', { path: '.npmrc', content: 'registry=https://evil.example/' })).rejects.toThrow(/npm/)
    symlinkSync(path.join(sb.base, '.aws'), path.join(sb.ws, 'aws'))
    await expect(run(ctx, 'read', { path: 'ws/aws/credentials' })).rejects.toThrow(/your AWS credentials/)
    expect(existsSync(path.join(sb.base, '.ssh', 'authorized_keys'))).toBe(false)
    expect(existsSync(path.join(sb.base, '.npmrc'))).toBe(false)
    const found = textOf(await run(ctx, 'grep', { pattern: 'SECRET' }))
    expect(found).not.toMatch(/AWS-SECRET|NETRC-SECRET|SSH-SECRET/)
    expect(found).toMatch(/outside\/secret\.txt/)
    const globbed = textOf(await run(ctx, 'glob', { pattern: '**/*' }))
    expect(globbed).toMatch(/^ws\/ok\.txt$/m)
    expect(globbed).not.toMatch(/\.aws|\.netrc|\.ssh/)
    await expect(run(ctx, 'glob', { pattern: '.aws/**' })).rejects.toThrow(/your AWS credentials/)
    // the rest of the home folder still works
    expect(textOf(await run(ctx, 'read', { path: 'ws/ok.txt' }))).toBe('fine')
  })

  it('a name not made yet is compared as a case-insensitive file system (macOS, Windows) would read it', async () => {
    const ctx = makeCtx(sb.base, { userDataDir: path.join(sb.base, '.config', 'loopdesk') })
    // ~/.npmrc and ~/.pypirc do not exist: on APFS or NTFS these names would create them
    await expect(run(ctx, 'write', { path: '.NPMRC', content: 'registry=https://evil.example/' })).rejects.toThrow(/npm/)
    await expect(run(ctx, 'write', { path: '.PyPirc', content: '[pypi]' })).rejects.toThrow(/PyPI/)
    await expect(run(ctx, 'write', { path: '.npmrc. ', content: 'x' })).rejects.toThrow(/npm/)
    await expect(run(ctx, 'write', { path: '.Config/LoopDesk/plugins/x.js', content: 'x' })).rejects.toThrow(/desktop app's data folder/)
    await expect(run(ctx, 'write', { path: '.SSH/authorized_keys', content: 'ssh-ed25519 AAAA attacker' })).rejects.toThrow(/your SSH folder/)
    expect(readdirSync(sb.base).sort()).toEqual(['.aws', '.netrc', '.ssh', 'outside', 'ws'])
    // names that merely start alike are no fence
    await run(ctx, 'write', { path: '.npmrc-notes.txt', content: 'x' })
  })

  it("git's other credential store and the XDG config folder's logins count, where XDG_CONFIG_HOME puts them too", async () => {
    const xdg = process.env.XDG_CONFIG_HOME
    try {
      delete process.env.XDG_CONFIG_HOME
      mkdirSync(path.join(sb.base, '.config', 'git'), { recursive: true })
      writeFileSync(path.join(sb.base, '.config', 'git', 'credentials'), 'https://me:GIT-SECRET@github.com\n')
      const ctx = makeCtx(sb.base)
      // git credential-store reads ~/.config/git/credentials as it reads ~/.git-credentials
      await expect(run(ctx, 'read', { path: '.config/git/credentials' })).rejects.toThrow(/git's stored credentials/)
      expect(textOf(await run(ctx, 'grep', { pattern: 'GIT-SECRET' }))).toMatch(/^No matches/)
      // with XDG_CONFIG_HOME set, git, gh and gcloud keep them under it
      process.env.XDG_CONFIG_HOME = path.join(sb.base, 'xdg')
      await expect(run(ctx, 'write', { path: 'xdg/git/credentials', content: 'x' })).rejects.toThrow(/git's stored credentials/)
      await expect(run(ctx, 'write', { path: 'xdg/gh/hosts.yml', content: 'x' })).rejects.toThrow(/GitHub CLI/)
      await expect(run(ctx, 'write', { path: 'xdg/gcloud/credentials.db', content: 'x' })).rejects.toThrow(/Google Cloud/)
      expect(existsSync(path.join(sb.base, 'xdg'))).toBe(false)
    } finally {
      if (xdg === undefined) delete process.env.XDG_CONFIG_HOME
      else process.env.XDG_CONFIG_HOME = xdg
    }
  })

  it("an NTFS stream name (::$DATA, ::$INDEX_ALLOCATION) is the fenced file or folder itself, as Windows reads it", async () => {
    const ctx = makeCtx(sb.base)
    // on NTFS `.npmrc::$DATA` is .npmrc's own content and `.ssh::$INDEX_ALLOCATION` is the .ssh folder
    await expect(run(ctx, 'write', { path: '.npmrc::$DATA', content: 'registry=https://evil.example/' })).rejects.toThrow(/npm/)
    await expect(run(ctx, 'write', { path: '.NPMRC. :x:$DATA', content: 'x' })).rejects.toThrow(/npm/)
    await expect(run(ctx, 'write', { path: '.ssh::$INDEX_ALLOCATION/authorized_keys', content: 'ssh-ed25519 AAAA attacker' })).rejects.toThrow(/your SSH folder/)
    await expect(run(ctx, 'write', { path: 'ws/.git::$INDEX_ALLOCATION/config', content: '[core]\n\tpager = sh\n' })).rejects.toThrow(/own data \(\.git\)/)
    expect(readdirSync(sb.base).sort()).toEqual(['.aws', '.netrc', '.ssh', 'outside', 'ws'])
    // a colon elsewhere in a name is no stream of a fenced one
    await run(ctx, 'write', { path: 'ws/notes:npmrc.txt', content: 'x' })
  })

  it('searches pass over a name only a case-insensitive file system would take for a fenced one, and still search the rest', async () => {
    // on Linux `.SSH` is a folder of its own; read refuses it (as macOS would), so grep and glob must pass over it
    // rather than fail the whole search on it
    mkdirSync(path.join(sb.base, '.SSH'))
    writeFileSync(path.join(sb.base, '.SSH', 'id_rsa'), 'SSH-SECRET\n')
    writeFileSync(path.join(sb.ws, 'notes.txt'), 'my SECRET notes\n')
    const ctx = makeCtx(sb.base)
    expect(textOf(await run(ctx, 'grep', { pattern: 'SECRET' })).split('\n')).toEqual(['outside/secret.txt:1: TOP SECRET', 'ws/notes.txt:1: my SECRET notes'])
    expect(textOf(await run(ctx, 'glob', { pattern: '**/*' }))).not.toMatch(/SSH/i)
    await expect(run(ctx, 'read', { path: '.SSH/id_rsa' })).rejects.toThrow(/your SSH folder/)
  })
})

describe("git's user-wide config in the workspace (a workspace set to the home folder, a dotfiles repo)", () => {
  let home: string | undefined
  let xdg: string | undefined
  beforeEach(() => {
    home = process.env.HOME
    xdg = process.env.XDG_CONFIG_HOME
    process.env.HOME = sb.base
    delete process.env.XDG_CONFIG_HOME
    writeFileSync(path.join(sb.base, '.gitconfig'), '[user]\n\tname = me\n')
  })
  afterEach(() => {
    process.env.HOME = home
    if (xdg === undefined) delete process.env.XDG_CONFIG_HOME
    else process.env.XDG_CONFIG_HOME = xdg
  })
  const GITCONFIG = /git's user-wide config/

  it('write and edit refuse ~/.gitconfig and ~/.config/git/config (core.fsmonitor runs for an allow-listed git status); read works', async () => {
    const ctx = makeCtx(sb.base)
    await expect(run(ctx, 'write', { path: '.gitconfig', content: '[core]\n\tfsmonitor = touch /tmp/pwned\n' })).rejects.toThrow(GITCONFIG)
    await expect(run(ctx, 'edit', { path: '.gitconfig', oldText: 'name = me', newText: 'name = me\n[core]\n\tpager = sh' })).rejects.toThrow(GITCONFIG)
    await expect(run(ctx, 'write', { path: '.config/git/config', content: '[core]\n\tpager = sh\n' })).rejects.toThrow(GITCONFIG)
    expect(readFileSync(path.join(sb.base, '.gitconfig'), 'utf8')).toBe('[user]\n\tname = me\n')
    expect(existsSync(path.join(sb.base, '.config'))).toBe(false)
    expect(textOf(await run(ctx, 'read', { path: '.gitconfig' }))).toMatch(/name = me/)
  })

  it('also where ~/.gitconfig links into the workspace (a dotfiles repo)', async () => {
    const dotfiles = path.join(sb.ws, 'dotfiles')
    mkdirSync(dotfiles)
    writeFileSync(path.join(dotfiles, 'gitconfig'), '[user]\n\tname = me\n')
    rmSync(path.join(sb.base, '.gitconfig'))
    symlinkSync(path.join(dotfiles, 'gitconfig'), path.join(sb.base, '.gitconfig'))
    const ctx = makeCtx(sb.ws)
    await expect(run(ctx, 'write', { path: 'dotfiles/gitconfig', content: '[core]\n\tpager = sh\n' })).rejects.toThrow(GITCONFIG)
    await run(ctx, 'write', { path: 'dotfiles/bashrc', content: '# fine' })
  })
})

describe("git's own files (.git)", () => {
  const GIT = /the repository's own data \(\.git\)/
  const hasGit = (() => {
    try {
      execFileSync('git', ['--version'], { stdio: 'ignore' })
      return true
    } catch {
      return false
    }
  })()

  it.skipIf(!hasGit)('write and edit refuse them, so an allow-listed `git status` cannot be made to run a planted command', async () => {
    execFileSync('git', ['init', '-q', sb.ws])
    const config = readFileSync(path.join(sb.ws, '.git', 'config'), 'utf8')
    const ctx = makeCtx(sb.ws, { execAllowlist: ['git status*'] })
    const planted = `${config}\tfsmonitor = "touch pwned.txt; false"\n`
    await expect(run(ctx, 'write', { path: '.git/config', content: planted })).rejects.toThrow(GIT)
    await expect(run(ctx, 'edit', { path: '.git/config', oldText: '[core]', newText: '[core]\n\tpager = touch pwned.txt' })).rejects.toThrow(GIT)
    await expect(run(ctx, 'write', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\ntouch pwned.txt\n' })).rejects.toThrow(GIT)
    await expect(run(ctx, 'write', { path: path.join(sb.ws, '.git.', 'config'), content: 'x' })).rejects.toThrow(GIT)
    await expect(run(ctx, 'write', { path: 'vendor/lib/.GIT/config', content: 'x' })).rejects.toThrow(GIT)
    await expect(run(ctx, 'write', { path: 'sub/.git', content: 'gitdir: /elsewhere\n' })).rejects.toThrow(GIT)
    symlinkSync(path.join(sb.ws, '.git', 'config'), path.join(sb.ws, 'cfg'))
    await expect(run(ctx, 'write', { path: 'cfg', content: planted })).rejects.toThrow(GIT)
    expect(readFileSync(path.join(sb.ws, '.git', 'config'), 'utf8')).toBe(config)
    await run(ctx, 'exec', { command: 'git status' }).catch(() => undefined)
    expect(existsSync(path.join(sb.ws, 'pwned.txt'))).toBe(false)
    // reading them, and files merely named like them, stay fine
    expect(textOf(await run(ctx, 'read', { path: '.git/config' }))).toContain('[core]')
    await run(ctx, 'write', { path: '.gitignore', content: 'dist\n' })
    await run(ctx, 'write', { path: '.github/workflows/ci.yml', content: 'on: push\n' })
    await run(ctx, 'write', { path: 'docs/.git-notes.md', content: 'x' })
    // Mercurial runs hooks from .hg/hgrc ([hooks] pre-status = …) the same way
    await expect(run(ctx, 'write', { path: 'old/.hg/hgrc', content: '[hooks]\npre-status = touch pwned.txt\n' })).rejects.toThrow(/own data \(\.hg\)/)
  })
})
