import crypto, { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../../api/errors'
import { ConfigManager } from './config-manager'
import { FileCredentialStore } from './credential-store'
import { MAX_CONFIG_BYTES } from '../read-small-file'

let stateDir: string
let file: string
let warn: ReturnType<typeof vi.spyOn>
beforeEach(() => {
  stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-cfg-'))
  file = path.join(stateDir, 'loopdesk.json')
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
})
afterEach(() => {
  warn.mockRestore()
  fs.rmSync(stateDir, { recursive: true, force: true })
})

const sha = (t: string) => createHash('sha256').update(t).digest('hex')
const mk = (env: NodeJS.ProcessEnv = {}) => new ConfigManager({ stateDir, env })

describe('ConfigManager', () => {
  it('missing file = defaults, ok, empty hash', () => {
    const cm = mk()
    expect(cm.path).toBe(file)
    expect(cm.load()).toEqual({ ok: true, issues: [], changed: true })
    expect(cm.hash).toBe('')
    expect(cm.raw).toEqual({})
    expect(cm.current.defaults.timeoutSeconds).toBe(600)
    expect(cm.current.agents).toEqual([{ id: 'main', workspace: path.join(stateDir, 'workspace') }])
  })

  it('accepts JSON5 (comments, trailing commas, unquoted keys) and hashes the file text', () => {
    const text = `// my config\n{\n  agents: { defaults: { timeoutSeconds: 30, }, },\n  gateway: { port: 19000 }, /* done */\n}\n`
    fs.writeFileSync(file, text)
    const cm = mk()
    expect(cm.load().ok).toBe(true)
    expect(cm.current.defaults.timeoutSeconds).toBe(30)
    expect(cm.current.gateway.port).toBe(19000)
    expect(cm.hash).toBe(sha(text))
  })

  it('a syntax error gives one issue with line and column; defaults stay in effect', () => {
    fs.writeFileSync(file, '{\n  agents: {\n    defaults: { timeoutSeconds: 30 ]\n  }\n}\n')
    const cm = mk()
    const r = cm.load()
    expect(r.ok).toBe(false)
    expect(r.issues).toHaveLength(1)
    expect(r.issues[0]).toMatchObject({ path: '', line: 3, column: 36 })
    expect(r.issues[0].message).toMatch(/^syntax error: invalid character '\]' \(line 3, column 36\)$/)
    expect(cm.current.defaults.timeoutSeconds).toBe(600)
  })

  it('an invalid file on reload keeps the last good config, records issues and is never rewritten', () => {
    fs.writeFileSync(file, JSON.stringify({ agents: { defaults: { timeoutSeconds: 42 } } }))
    const cm = mk()
    cm.load()
    const changes: number[] = []
    cm.onChange((c) => changes.push(c.defaults.timeoutSeconds))

    const bad = '{ "agents": { "defaults": { "timeoutSeconds": -5, "bogus": true } } }'
    fs.writeFileSync(file, bad)
    const past = new Date(Date.now() - 60_000)
    fs.utimesSync(file, past, past)
    const before = fs.statSync(file)
    const r = cm.reload()
    expect(r.ok).toBe(false)
    expect(r.issues).toEqual([
      { path: 'agents.defaults.timeoutSeconds', message: 'must be integer >= 0' },
      { path: 'agents.defaults.bogus', message: 'unknown key' },
    ])
    expect(cm.issues).toEqual(r.issues)
    expect(cm.current.defaults.timeoutSeconds).toBe(42)
    expect(changes).toEqual([])
    expect(fs.readFileSync(file, 'utf8')).toBe(bad)
    expect(fs.statSync(file).mtimeMs).toBe(before.mtimeMs)
    expect(fs.statSync(file).ino).toBe(before.ino)
    expect(cm.hash).toBe(sha(bad)) // patches must be based on what is on disk

    fs.writeFileSync(file, '{ agents: { defaults: { timeoutSeconds: 7 } } }')
    expect(cm.reload()).toEqual({ ok: true, issues: [], changed: true })
    expect(cm.issues).toEqual([])
    expect(changes).toEqual([7])
    expect(cm.reload().changed).toBe(false)
  })

  it('patch applies a merge patch, validates the result, writes atomically as 0600 and notifies', () => {
    const cm = mk()
    cm.load()
    const seen: Array<[number, string]> = []
    cm.onChange((c, ch) => seen.push([c.gateway.port, ch.source]))
    const { hash } = cm.patch({ gateway: { port: 19001, auth: { token: 'secret-token' } } }, '')
    const text = fs.readFileSync(file, 'utf8')
    expect(JSON.parse(text)).toEqual({ gateway: { port: 19001, auth: { token: 'secret-token' } } })
    expect(hash).toBe(sha(text))
    expect(cm.hash).toBe(hash)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(seen).toEqual([[19001, 'patch']])
    expect(cm.current.gateway.token).toBe('secret-token')

    cm.patch({ gateway: { port: null }, agents: { defaults: { thinkingDefault: 'high' } } }, hash)
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ gateway: { auth: { token: 'secret-token' } }, agents: { defaults: { thinkingDefault: 'high' } } })
    expect(cm.current.gateway.port).toBe(18789)
    expect(fs.readdirSync(stateDir)).toEqual(['loopdesk.json']) // no temp or lock files left
  })

  it('patch keeps an existing private mode; one open to others becomes 0600 (it may hold keys)', () => {
    fs.writeFileSync(file, '{}')
    fs.chmodSync(file, 0o400)
    const cm = mk()
    cm.load()
    cm.patch({ gateway: { port: 1 } })
    expect(fs.statSync(file).mode & 0o777).toBe(0o400)
    fs.chmodSync(file, 0o640)
    cm.patch({ gateway: { port: 2 } })
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
  })

  it('patch with a stale baseHash is refused (details.code CONFLICT) and writes nothing', () => {
    fs.writeFileSync(file, '{}')
    const cm = mk()
    cm.load()
    const base = cm.hash
    fs.writeFileSync(file, '{ gateway: { port: 1 } }') // someone edited the file
    const err = (() => {
      try {
        cm.patch({ gateway: { port: 2 } }, base)
      } catch (e) {
        return e
      }
    })() as ApiError
    expect(err).toBeInstanceOf(ApiError)
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', message: 'config changed since last load; re-run config.get and retry', details: { code: 'CONFLICT' } })
    expect(fs.readFileSync(file, 'utf8')).toBe('{ gateway: { port: 1 } }')
  })

  it('an invalid patch result is INVALID_REQUEST naming each bad path, and writes nothing', () => {
    fs.writeFileSync(file, '{ gateway: { port: 1 } }')
    const cm = mk()
    cm.load()
    let err: ApiError | undefined
    try {
      cm.patch({ gateway: { port: -1, bind: 'moon' }, agents: { defaults: { verboseDefault: 'loud' } } })
    } catch (e) {
      err = e as ApiError
    }
    expect(err?.code).toBe('INVALID_REQUEST')
    expect(err?.message).toContain('gateway.port: must be integer between 0 and 65535')
    expect(err?.message).toContain('gateway.bind: must be one of')
    expect(err?.message).toContain('agents.defaults.verboseDefault')
    expect((err?.details as { issues: unknown[] }).issues).toHaveLength(3)
    expect(fs.readFileSync(file, 'utf8')).toBe('{ gateway: { port: 1 } }')
    expect(cm.current.gateway.port).toBe(1)
    expect(() => cm.patch([] as never)).toThrow(/must be an object/)
  })

  it('a patch whose file would be too large to read back is refused and writes nothing (the next start would lose every setting)', () => {
    fs.writeFileSync(file, '{ gateway: { port: 1 } }')
    const cm = mk()
    cm.load()
    const beforeWrite = vi.fn()
    const huge = 'x'.repeat(MAX_CONFIG_BYTES)
    expect(() => cm.patch({ models: { providers: { p: { baseUrl: 'http://127.0.0.1:1/v1', headers: { 'X-Big': huge } } } } }, undefined, { beforeWrite })).toThrow(
      /would be \d+ bytes, over the 16777216/,
    )
    expect(beforeWrite).not.toHaveBeenCalled()
    expect(fs.readFileSync(file, 'utf8')).toBe('{ gateway: { port: 1 } }')
    expect(fs.readdirSync(stateDir)).toEqual(['loopdesk.json'])
    // what the limit allows is still written and reads back
    cm.patch({ models: { providers: { p: { baseUrl: 'http://127.0.0.1:1/v1', headers: { 'X-Big': 'x'.repeat(1_000_000) } } } } })
    expect(mk().load().ok).toBe(true)
  })

  it('patch refuses to rewrite a file with a syntax error, but can repair a schema-invalid one', () => {
    fs.writeFileSync(file, '{ gateway: ')
    const cm = mk()
    cm.load()
    expect(() => cm.patch({ gateway: { port: 1 } })).toThrow(/fix the file first/)
    expect(fs.readFileSync(file, 'utf8')).toBe('{ gateway: ')

    fs.writeFileSync(file, '{ gateway: { port: -3 } }')
    expect(cm.reload().ok).toBe(false)
    cm.patch({ gateway: { port: 4000 } }, cm.hash)
    expect(cm.issues).toEqual([])
    expect(cm.current.gateway.port).toBe(4000)
  })

  it('patch keeps the comments of a hand-annotated file; where it cannot, the old file is kept as .bak', () => {
    const annotated = '// mine\n{\n  "gateway": { "port": 19000 }, // firewall rule\n}\n'
    fs.writeFileSync(file, annotated)
    const cm = mk()
    cm.load()
    cm.patch({ gateway: { port: 19001 } }, cm.hash)
    const kept = fs.readFileSync(file, 'utf8')
    expect(kept).toBe('// mine\n{\n  "gateway": { "port": 19001 }, // firewall rule\n}\n')
    expect(cm.hash).toBe(sha(kept))
    expect(fs.existsSync(`${file}.bak`)).toBe(false)

    const json5 = '{ gateway: { port: 1 } } // unquoted keys: not editable in place\n'
    fs.writeFileSync(file, json5)
    cm.reload()
    cm.patch({ gateway: { port: 2 } }, cm.hash)
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ gateway: { port: 2 } })
    expect(fs.readFileSync(`${file}.bak`, 'utf8')).toBe(json5)
    expect(fs.statSync(`${file}.bak`).mode & 0o777).toBe(0o600)
  })

  it('a file with problems stays fixable: a patch that adds none is written, one that adds any is refused', () => {
    // two problems: a typo'd key and a bad port
    const text = JSON.stringify({ agents: { defaults: { timeoutSecs: 5 } }, gateway: { port: 70000 } })
    fs.writeFileSync(file, text)
    const cm = mk()
    expect(cm.load().ok).toBe(false)
    expect(cm.issues).toHaveLength(2)

    // a new problem (alone or beside a fix) is refused, naming only what it adds; nothing written
    const err = (() => {
      try {
        cm.patch({ gateway: { port: 1, bind: 'moon' } }, cm.hash)
      } catch (e) {
        return e as ApiError
      }
    })()
    expect(err).toMatchObject({ code: 'INVALID_REQUEST', message: 'invalid config: gateway.bind: must be one of "loopback", "lan", "all"' })
    expect((err?.details as { issues: unknown[] }).issues).toEqual([{ path: 'gateway.bind', message: 'must be one of "loopback", "lan", "all"' }])
    expect(fs.readFileSync(file, 'utf8')).toBe(text)

    // fixing one problem (and changing something else) goes through; the other one remains and the
    // last good config (here: defaults) stays in effect, no listener told
    const seen: unknown[] = []
    cm.onChange((_, c) => seen.push(c))
    const r = cm.patch({ gateway: { port: 4000 }, agents: { defaults: { thinkingDefault: 'high' } } }, cm.hash)
    expect(r.issues).toEqual([{ path: 'agents.defaults.timeoutSecs', message: 'unknown key' }])
    expect(cm.issues).toEqual(r.issues)
    expect(cm.hash).toBe(r.hash)
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ agents: { defaults: { timeoutSecs: 5, thinkingDefault: 'high' } }, gateway: { port: 4000 } })
    expect(cm.current.gateway.port).not.toBe(4000)
    expect(seen).toEqual([])

    // the save that fixes the last one applies everything
    const fixed = cm.patch({ agents: { defaults: { timeoutSecs: null, timeoutSeconds: 5 } } }, cm.hash)
    expect(fixed.issues).toEqual([])
    expect(cm.issues).toEqual([])
    expect(cm.current.gateway.port).toBe(4000)
    expect(cm.current.defaults.timeoutSeconds).toBe(5)
    expect(seen).toEqual([{ source: 'patch', hash: fixed.hash }])
  })

  it('a problem hidden behind a schema error (a duplicate agent id) is the file\'s own, not one the fixing patch adds', () => {
    fs.writeFileSync(file, JSON.stringify({ gateway: { port: -1 }, agents: { list: [{ id: 'a' }, { id: 'a' }] } }))
    const cm = mk()
    expect(cm.load().issues.map((i) => i.path)).toEqual(['gateway.port'])
    const r = cm.patch({ gateway: { port: 4000 } }, cm.hash)
    expect(r.issues).toEqual([{ path: 'agents.list[1].id', message: 'duplicate agent id "a"' }])
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).gateway.port).toBe(4000)
  })

  it('a model entry without contextWindow / maxTokens is valid, and a patch can change the rest of the file', () => {
    fs.writeFileSync(file, '{ models: { providers: { local: { baseUrl: "http://127.0.0.1:11434/v1", models: [{ id: "llama3.1" }] } } } }')
    const cm = mk()
    expect(cm.load()).toMatchObject({ ok: true, issues: [] })
    expect(cm.patch({ agents: { defaults: { timeoutSeconds: 30 } } }, cm.hash).issues).toEqual([])
    expect(cm.current.defaults.timeoutSeconds).toBe(30)
  })

  it('redacts secrets and restores them when the placeholder is patched back', () => {
    fs.writeFileSync(file, JSON.stringify({ models: { providers: { openai: { apiKey: 'sk-real' }, local: { baseUrl: 'http://x' } } }, gateway: { auth: { token: 'tok' } } }))
    const cm = mk()
    cm.load()
    const red = cm.redacted()
    expect(JSON.stringify(red)).not.toContain('sk-real')
    expect(JSON.stringify(red)).not.toContain('tok"')
    expect(red).toEqual({ models: { providers: { openai: { apiKey: '__REDACTED__' }, local: { baseUrl: 'http://x' } } }, gateway: { auth: { token: '__REDACTED__' } } })
    expect(cm.raw.models?.providers?.openai.apiKey).toBe('sk-real') // redaction is a copy

    cm.patch(red) // a UI saving the redacted form back
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).models.providers.openai.apiKey).toBe('sk-real')
    expect(() => cm.patch({ models: { providers: { anthropic: { apiKey: '__REDACTED__' } } } })).toThrow(/redaction placeholder/)
  })

  it('secretsStatus reports set/not set from config, env, credential store — never values', () => {
    fs.writeFileSync(file, JSON.stringify({ models: { providers: { local: { apiKeyEnv: 'LOCAL_KEY' }, lit: { apiKey: 'k' }, none: { baseUrl: 'http://x' } } } }))
    const creds = new FileCredentialStore({ stateDir })
    creds.set('groq', 'gsk-1')
    const cm = new ConfigManager({ stateDir, env: { LOCAL_KEY: 'v', OPENAI_API_KEY: 'sk' }, credentials: creds })
    cm.load()
    const s = cm.secretsStatus()
    expect(s).toMatchObject({ local: 'set', lit: 'set', none: 'not set', openai: 'set', anthropic: 'not set', groq: 'set', 'gateway.auth.token': 'not set' })
    expect(JSON.stringify(s)).not.toMatch(/sk|gsk|"v"/)
  })

  it('isolates throwing change listeners', () => {
    const cm = mk()
    const err = vi.spyOn(console, 'error').mockImplementation(() => {})
    const got: number[] = []
    cm.onChange(() => {
      throw new Error('listener broke')
    })
    const off = cm.onChange((c) => got.push(c.gateway.port))
    cm.patch({ gateway: { port: 5 } })
    off()
    cm.patch({ gateway: { port: 6 } })
    expect(got).toEqual([5])
    expect(err).toHaveBeenCalled()
    err.mockRestore()
  })

  it('an invalid file is reported once, not again by each read of the same text (the watcher’s settle pass at start)', () => {
    const lines = () => warn.mock.calls.map((c: unknown[]) => String(c[0])).filter((l: string) => l.includes('keeping the last good config'))
    const bad = '{ agents: { defaults: { model: 42 } } }'
    fs.writeFileSync(file, bad)
    const cm = mk()
    cm.load()
    cm.reload() // what watch() does one interval after the start, the file unchanged
    cm.reload()
    expect(lines()).toHaveLength(1)
    expect(cm.issues).toHaveLength(1)
    fs.writeFileSync(file, '{ agents: { defaults: { model: 43 } } }') // another problem text: said again
    cm.reload()
    cm.reload()
    expect(lines()).toHaveLength(2)
    fs.writeFileSync(file, '{}')
    cm.reload()
    fs.writeFileSync(file, bad) // broken again after a good spell: said again
    cm.reload()
    expect(lines()).toHaveLength(3)
    const broken = '{ "agents": '
    fs.writeFileSync(file, broken) // a syntax error likewise, once
    cm.reload()
    cm.reload()
    expect(lines()).toHaveLength(4)
  })

  it('watch() reloads when the file changes', async () => {
    fs.writeFileSync(file, '{}')
    const cm = mk()
    cm.load()
    const stop = cm.watch(20)
    try {
      const changed = new Promise<number>((r) => cm.onChange((c) => r(c.gateway.port)))
      await new Promise((r) => setTimeout(r, 50))
      fs.writeFileSync(file + '.tmp', '{ gateway: { port: 4242 } }')
      fs.renameSync(file + '.tmp', file)
      expect(await changed).toBe(4242)
    } finally {
      stop()
    }
  })

  it('watch() catches a file created while the threadpool delays the poller’s first stat', async () => {
    fs.rmSync(file, { force: true })
    const cm = mk()
    cm.load()
    // keep every libuv threadpool thread busy, so the baseline stat waits behind these jobs
    const busy = Array.from({ length: 8 }, () => new Promise((r) => crypto.pbkdf2('x', 'y', 300_000, 32, 'sha256', r)))
    const stop = cm.watch(50)
    try {
      const changed = new Promise<number>((r) => cm.onChange((c) => r(c.gateway.port)))
      fs.writeFileSync(file, '{ gateway: { port: 4343 } }') // before the baseline stat ran: it is in the baseline
      await Promise.all(busy)
      expect(await Promise.race([changed, new Promise((r) => setTimeout(() => r('missed'), 3000))])).toBe(4343)
    } finally {
      stop()
    }
  })

  it('honours $LOOPDESK_CONFIG_PATH', () => {
    const alt = path.join(stateDir, 'alt.json5')
    fs.writeFileSync(alt, '{ gateway: { port: 1234 } }')
    const cm = new ConfigManager({ stateDir, env: { LOOPDESK_CONFIG_PATH: alt } })
    cm.load()
    expect(cm.path).toBe(alt)
    expect(cm.current.gateway.port).toBe(1234)
  })

  describe('file mode (the file may hold keys)', () => {
    const modeOf = (f: string) => fs.statSync(f).mode & 0o777
    const withKey = { models: { providers: { x: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-hand-written-secret' } } } }

    it('a write narrows a hand-made 0644 file to 0600 (an atomic write would keep the old mode)', () => {
      fs.writeFileSync(file, JSON.stringify(withKey))
      fs.chmodSync(file, 0o644)
      const cm = mk()
      cm.reload() // not load(): that narrows at start already
      expect(modeOf(file)).toBe(0o644)
      expect(cm.exposure()).toEqual({ path: file, mode: '0644', secrets: ['models.providers.x.apiKey'] })
      cm.patch({ agents: { defaults: { timeoutSeconds: 31 } } }, cm.hash)
      expect(modeOf(file)).toBe(0o600)
      expect(cm.exposure()).toBeUndefined()
    })

    it('a write that keeps a .bak narrows an old, open .bak too', () => {
      fs.writeFileSync(file, "{ models: { providers: { x: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-hand-written-secret' } } } } // unquoted keys\n")
      fs.writeFileSync(`${file}.bak`, '{}')
      fs.chmodSync(`${file}.bak`, 0o644)
      const cm = mk()
      cm.load()
      // unquoted keys cannot be edited in place: the old text (with the key) goes to .bak
      cm.patch({ gateway: { port: 2 } }, cm.hash)
      expect(fs.readFileSync(`${file}.bak`, 'utf8')).toContain('sk-hand-written-secret')
      expect(modeOf(`${file}.bak`)).toBe(0o600)
    })

    it('at start a file holding a secret is made 0600; one without secrets keeps its mode', () => {
      fs.writeFileSync(file, JSON.stringify(withKey))
      fs.chmodSync(file, 0o644)
      mk().load()
      expect(modeOf(file)).toBe(0o600)
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('its mode is now 0600'))
      expect(String(warn.mock.calls.at(-1))).not.toContain('sk-hand-written-secret')

      fs.writeFileSync(file, JSON.stringify({ gateway: { port: 19001 } }))
      fs.chmodSync(file, 0o644)
      const cm = mk()
      cm.load()
      expect(modeOf(file)).toBe(0o644)
      expect(cm.exposure()).toBeUndefined()
    })

    it('the gateway token counts as a secret; the placeholder does not', () => {
      fs.writeFileSync(file, JSON.stringify({ gateway: { auth: { token: 'tok-0123456789' } }, models: { providers: { y: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: '__REDACTED__' } } } }))
      fs.chmodSync(file, 0o640)
      const cm = mk()
      cm.reload()
      expect(cm.exposure()?.secrets).toEqual(['gateway.auth.token'])
    })
  })
})

describe('a loopdesk.json that is a symlink', () => {
  it.skipIf(process.platform === 'win32')('a patch writes the file it points to and keeps the link', () => {
    const dotfiles = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-dotfiles-'))
    try {
      const real = path.join(dotfiles, 'loopdesk.json')
      fs.writeFileSync(real, JSON.stringify({ gateway: { port: 19001 } }), { mode: 0o600 })
      fs.symlinkSync(real, file)
      const cm = mk()
      cm.patch({ gateway: { port: 19002 } })
      expect(fs.lstatSync(file).isSymbolicLink()).toBe(true)
      expect(fs.readlinkSync(file)).toBe(real)
      expect(JSON.parse(fs.readFileSync(real, 'utf8'))).toEqual({ gateway: { port: 19002 } })
      expect(fs.readdirSync(dotfiles)).toEqual(['loopdesk.json'])
      expect(cm.current.gateway.port).toBe(19002)
    } finally {
      fs.rmSync(dotfiles, { recursive: true, force: true })
    }
  })
})
