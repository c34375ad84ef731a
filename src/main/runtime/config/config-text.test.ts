import JSON5 from 'json5'
import { describe, expect, it } from 'vitest'
import { configTextFor, renameKeyInText } from './config-text'

const ANNOTATED = `// Loopdesk settings — edited by hand
{
  "gateway": {
    "port": 19000, // fixed so the firewall rule matches
  },
  /* the work laptop's models */
  "models": {
    "providers": {
      "local": { "baseUrl": "http://127.0.0.1:11434/v1", "models": [{ "id": "llama3.1" }] },
    },
  },
  "agents": { "defaults": { "thinkingDefault": "low" } },
}
`

describe('configTextFor', () => {
  it('a file without comments is written as plain JSON', () => {
    const r = configTextFor('{"gateway":{"port":1}}', { gateway: { port: 2 } })
    expect(r).toEqual({ text: '{\n  "gateway": {\n    "port": 2\n  }\n}\n', commentsLost: false })
    expect(configTextFor(undefined, { a: 1 }).text).toBe('{\n  "a": 1\n}\n')
  })

  it('keeps comments: changes, additions and removals are edited in place', () => {
    const next = {
      gateway: { port: 19001, bind: 'loopback' },
      models: { providers: { local: { baseUrl: 'http://127.0.0.1:11434/v1', models: [{ id: 'llama3.1' }, { id: 'qwen3' }] } } },
    }
    const r = configTextFor(ANNOTATED, next)
    expect(r.commentsLost).toBe(false)
    expect(JSON5.parse(r.text)).toEqual(next)
    for (const comment of ['// Loopdesk settings — edited by hand', '// fixed so the firewall rule matches', "/* the work laptop's models */"]) {
      expect(r.text).toContain(comment)
    }
    expect(r.text).not.toContain('thinkingDefault')
    // a trailing comment stays on the line it was about; untouched lines stay as the user wrote them
    expect(r.text).toContain('    "port": 19001, // fixed so the firewall rule matches\n')
    expect(r.text).toContain('  "gateway": {\n    "bind": "loopback",\n')
    expect(r.text).toContain('/* the work laptop\'s models */\n  "models": {\n    "providers": {\n      "local": { "baseUrl": "http://127.0.0.1:11434/v1", "models": [')
  })

  it('a commented file in other JSON5 syntax is rewritten in full and says the comments are lost', () => {
    const r = configTextFor(`{ // unquoted keys\n  gateway: { port: 1 } }`, { gateway: { port: 2 } })
    expect(r.commentsLost).toBe(true)
    expect(JSON.parse(r.text)).toEqual({ gateway: { port: 2 } })
  })

  it('keeps tabs and CRLF line ends of the file', () => {
    const r = configTextFor('{\r\n\t// note\r\n\t"a": 1\r\n}\r\n', { a: 1, b: { c: true } })
    expect(r.commentsLost).toBe(false)
    expect(JSON5.parse(r.text)).toEqual({ a: 1, b: { c: true } })
    expect(r.text).toContain('\t// note\r\n')
    expect(r.text).not.toMatch(/[^\r]\n/)
  })
})

describe('renameKeyInText', () => {
  it('renames the key where it stands: its value and every comment stay', () => {
    const out = renameKeyInText(ANNOTATED, ['models', 'providers', 'local'], 'lab')!
    expect(out).toBe(ANNOTATED.replace('"local": {', '"lab": {'))
    expect(JSON5.parse(out).models.providers.lab.baseUrl).toBe('http://127.0.0.1:11434/v1')
  })
  it('no such key, or a text that is not JSON with comments: undefined (the caller rewrites the value)', () => {
    expect(renameKeyInText(ANNOTATED, ['models', 'providers', 'nope'], 'lab')).toBeUndefined()
    expect(renameKeyInText('{ models: { providers: { local: {} } } }', ['models', 'providers', 'local'], 'lab')).toBeUndefined()
  })
})
