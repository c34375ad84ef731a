import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { afterAll, beforeAll } from 'vitest'
import { startModelServer, type ModelServer } from '../../../../test/fixtures/model-server'
import { startTestRuntime, type TestRuntime } from '../../../../test/fixtures/test-runtime'
import { searchHandlers } from '../handlers-search'
import { clearRenderedPieces } from '../../../shared/rendered-find'
import { findInTranscriptFile, searchTranscriptFile, searchTranscriptText } from './transcript-search'

const line = (o: object) => JSON.stringify(o)
const msg = (role: string, content: unknown, id = Math.random().toString(36).slice(2)) =>
  line({ type: 'message', id, parentId: null, timestamp: '2026-01-01T00:00:00Z', message: { role, content, timestamp: 0 } })

describe('searchTranscriptText', () => {
  const jsonl = [
    line({ type: 'session', version: 3, id: 's1', timestamp: '2026-01-01T00:00:00Z', cwd: '/work' }),
    msg('user', 'Where is the "tax" folder?', 'u1'),
    msg('assistant', [
      { type: 'text', text: 'It is under ~/Documents/Taxes 2026, next to the receipts.' },
      { type: 'toolCall', id: 't1', name: 'exec', arguments: { command: 'ls ~/secret-folder' } },
    ], 'a1'),
    msg('toolResult', [{ type: 'text', text: 'receipts-from-tool.pdf' }], 'r1'),
    msg('assistant', [{ type: 'text', text: 'The RECEIPTS are sorted by month.' }], 'a2'),
    '{"type":"message","message":{"role":"user","content":"torn receipts li',
  ].join('\n')

  it('finds the newest user or assistant message, case-insensitively, with a snippet', () => {
    expect(searchTranscriptText(jsonl, 'receipts')).toEqual({ messageId: 'a2', role: 'assistant', snippet: 'The RECEIPTS are sorted by month.' })
    expect(searchTranscriptText(jsonl, 'DOCUMENTS/taxes')).toEqual({ messageId: 'a1', role: 'assistant', snippet: 'It is under ~/Documents/Taxes 2026, next to the receipts.' })
  })
  it('matches text that JSON escapes (quotes), tool calls (name and arguments) and tool output, not metadata', () => {
    expect(searchTranscriptText(jsonl, '"tax" folder')).toMatchObject({ role: 'user' })
    expect(searchTranscriptText(jsonl, 'secret-folder')).toEqual({ messageId: 'a1', role: 'assistant', snippet: 'exec: ls ~/secret-folder' })
    expect(searchTranscriptText(jsonl, 'from-tool')).toEqual({ messageId: 'r1', role: 'toolResult', snippet: 'receipts-from-tool.pdf' })
    expect(searchTranscriptText(jsonl, 'parentId')).toBeUndefined()
    expect(searchTranscriptText(jsonl, '/work')).toBeUndefined()
    expect(searchTranscriptText(jsonl, 'command')).toBeUndefined() // an argument's name is not its value
  })
  it('searches a huge tool output by its start only', () => {
    const huge = `${'x '.repeat(30_000)}late-marker`
    const j = msg('toolResult', [{ type: 'text', text: `early-marker ${huge}` }])
    expect(searchTranscriptText(j, 'early-marker')).toMatchObject({ role: 'toolResult' })
    expect(searchTranscriptText(j, 'late-marker')).toBeUndefined()
    // and a tool call's arguments are bounded the same way
    const call = msg('assistant', [{ type: 'toolCall', id: 't', name: 'write', arguments: { path: 'a.txt', content: huge } }])
    expect(searchTranscriptText(call, 'a.txt')).toMatchObject({ role: 'assistant' })
    expect(searchTranscriptText(call, 'late-marker')).toBeUndefined()
  })
  it('cuts a long message around the match', () => {
    const long = `${'a'.repeat(500)} needle ${'b'.repeat(500)}`
    const hit = searchTranscriptText(msg('user', long), 'needle')!
    expect(hit.snippet).toMatch(/^…needle b+…$/)
    expect(hit.snippet.length).toBeLessThan(140)
    // the cut starts at a word boundary, shortly before the match
    expect(searchTranscriptText(msg('user', 'one two three four five six seven eight nine ten'), 'nine')!.snippet).toBe('…six seven eight nine ten')
  })
})

describe('searchTranscriptFile', () => {
  it('scans a large transcript a slice at a time (the event loop turns in between): the same hit; a deadline stops it between slices', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-search-'))
    const file = path.join(dir, 's.jsonl')
    const filler = Array.from({ length: 12_000 }, (_, i) => msg('assistant', [{ type: 'text', text: `${'filler '.repeat(40)}${i}` }]))
    fs.writeFileSync(file, [msg('user', 'the needle is at the very start', 'first'), ...filler].join('\n'))
    try {
      expect(fs.statSync(file).size).toBeGreaterThan(3_000_000)
      expect(await searchTranscriptFile(file, 'NEEDLE')).toEqual({ hit: { messageId: 'first', role: 'user', snippet: 'the needle is at the very start' } })
      expect(await searchTranscriptFile(file, 'nowhere')).toEqual({})
      // past the deadline it stops after the first slice: the match at the start was never reached
      expect(await searchTranscriptFile(file, 'needle', Date.now() - 1)).toEqual({ partial: true })
      expect(await searchTranscriptFile(path.join(dir, 'missing.jsonl'), 'needle')).toEqual({})
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('findInTranscriptFile', () => {
  it('lists every matching message of a large transcript oldest first, counts them all, keeps the newest `limit`', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-find-'))
    const file = path.join(dir, 's.jsonl')
    // 12,000 messages over 3 MB (several slices), every 1,000th one a match
    const lines = Array.from({ length: 12_000 }, (_, i) =>
      msg(i % 2 ? 'assistant' : 'user', i % 2 ? [{ type: 'text', text: `${'filler '.repeat(40)}${i % 1000 === 1 ? 'Marker' : ''}` }] : `${'x '.repeat(30)}${i % 1000 === 0 ? 'marker' : ''}`, `m${i}`),
    )
    fs.writeFileSync(file, lines.join('\n'))
    try {
      expect(fs.statSync(file).size).toBeGreaterThan(3_000_000)
      const all = await findInTranscriptFile(file, 'MARKER', 100)
      expect(all.total).toBe(24)
      expect(all.occurrences).toBe(24)
      expect(all.partial).toBeUndefined()
      expect(all.matches.slice(0, 3)).toEqual([
        { messageId: 'm0', role: 'user', count: 1 },
        { messageId: 'm1', role: 'assistant', count: 1 },
        { messageId: 'm1000', role: 'user', count: 1 },
      ])
      expect(all.matches.map((m) => m.messageId).at(-1)).toBe('m11001')
      const few = await findInTranscriptFile(file, 'marker', 3)
      expect(few).toEqual({
        total: 24,
        occurrences: 24,
        matches: [
          { messageId: 'm10001', role: 'assistant', count: 1 },
          { messageId: 'm11000', role: 'user', count: 1 },
          { messageId: 'm11001', role: 'assistant', count: 1 },
        ],
      })
      expect(await findInTranscriptFile(file, 'marker', 3, Date.now() - 1)).toMatchObject({ partial: true })
      expect(await findInTranscriptFile(path.join(dir, 'missing.jsonl'), 'marker', 3)).toEqual({ matches: [], total: 0, occurrences: 0 })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('counts occurrences in a message: text parts, a tool call\'s name and arguments, tool output; case-insensitive, not overlapping', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-find-'))
    const file = path.join(dir, 's.jsonl')
    const lines = [
      msg('user', 'Tea? tea, TEA — and teatime', 'u1'),
      msg('assistant', [{ type: 'text', text: 'one tea' }, { type: 'toolCall', id: 'c1', name: 'tea_lookup', arguments: { q: 'green tea', n: 2 } }], 'a1'),
      JSON.stringify({ type: 'message', id: 'r1', message: { role: 'toolResult', toolCallId: 'c1', toolName: 'tea_lookup', content: [{ type: 'text', text: 'tea tea' }] } }),
      msg('user', 'aaaa', 'u2'),
    ]
    fs.writeFileSync(file, lines.join('\n'))
    try {
      const found = await findInTranscriptFile(file, 'TEA', 10)
      expect(found.matches).toEqual([
        { messageId: 'u1', role: 'user', count: 4 },
        { messageId: 'a1', role: 'assistant', count: 3 },
        { messageId: 'r1', role: 'toolResult', count: 2 },
      ])
      expect(found).toMatchObject({ total: 3, occurrences: 9 })
      // "aa" twice in "aaaa", not three times; a message not listed is still counted
      expect(await findInTranscriptFile(file, 'aa', 10)).toMatchObject({ matches: [{ messageId: 'u2', count: 2 }], occurrences: 2 })
      expect(await findInTranscriptFile(file, 'tea', 1)).toMatchObject({ matches: [{ messageId: 'r1', count: 2 }], total: 3, occurrences: 9 })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('counts a reply as the window renders it: a match only in a link\'s URL or in markdown syntax is none', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-find-'))
    const file = path.join(dir, 's.jsonl')
    const lines = [
      msg('assistant', [{ type: 'text', text: 'See [the guide](https://docs.example/guide) or **the** guide.' }], 'a1'),
      msg('assistant', [{ type: 'text', text: 'Only a [link](https://docs.example/x).' }], 'a2'),
      // the user's own text is shown as written
      msg('user', 'docs.example **the**', 'u1'),
    ]
    fs.writeFileSync(file, lines.join('\n'))
    try {
      // the sidebar's search still finds a2 by its source; find lists only what it can mark
      expect(await findInTranscriptFile(file, 'docs.example', 10)).toEqual({ matches: [{ messageId: 'u1', role: 'user', count: 1 }], total: 1, occurrences: 1 })
      expect(await findInTranscriptFile(file, 'guide', 10)).toMatchObject({ matches: [{ messageId: 'a1', count: 2 }], occurrences: 2 })
      expect(await findInTranscriptFile(file, '**the**', 10)).toMatchObject({ matches: [{ messageId: 'u1', count: 1 }], total: 1 })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('a reply that shows the query only once rendered', () => {
  const withFile = async (lines: string[], f: (file: string) => Promise<void>) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ld-find-'))
    const file = path.join(dir, 's.jsonl')
    fs.writeFileSync(file, lines.join('\n'))
    try {
      await f(file)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }

  it('is listed and counted by find, and found by the sidebar search with a snippet of what the window shows', async () => {
    const lines = [
      msg('user', 'what about AT&amp;T?', 'u1'), // shown as written: no "AT&T" in it
      msg('assistant', [{ type: 'text', text: 'AT&amp;T merged; so did AT&amp;T.' }], 'a1'),
      msg('assistant', [{ type: 'text', text: 'compute a \\* b, then &lt;div&gt; and &#x41;BC' }], 'a2'),
      msg('assistant', [{ type: 'text', text: 'the **quick** fox' }], 'a3'),
    ]
    await withFile(lines, async (file) => {
      expect(await findInTranscriptFile(file, 'AT&T', 10)).toEqual({ matches: [{ messageId: 'a1', role: 'assistant', count: 2 }], total: 1, occurrences: 2 })
      for (const q of ['a * b', '<div>', 'abc']) expect((await findInTranscriptFile(file, q, 10)).matches, q).toEqual([{ messageId: 'a2', role: 'assistant', count: 1 }])
      expect((await findInTranscriptFile(file, 'the quick fox', 10)).matches).toEqual([{ messageId: 'a3', role: 'assistant', count: 1 }])
      // the source's own text, only in the user's message
      expect((await findInTranscriptFile(file, 'AT&amp;T', 10)).matches).toEqual([{ messageId: 'u1', role: 'user', count: 1 }])
      expect(searchTranscriptText(lines.join('\n'), 'at&t')).toEqual({ messageId: 'a1', role: 'assistant', snippet: 'AT&T merged; so did AT&T.' })
      expect(searchTranscriptText(lines.join('\n'), 'quick fox')).toEqual({ messageId: 'a3', role: 'assistant', snippet: 'the quick fox' })
    })
  })

  it('rendered text kept between queries never outlives the message: edit, regenerate, compaction and delete answer as uncached', async () => {
    const long = (word: string, n: number) => Array.from({ length: n }, (_, i) => `### ${i}\n\nSome **${word}** here, AT&amp;T ${i}.\n\n- item ${word}`).join('\n\n')
    const v1 = [msg('user', 'go', 'u1'), msg('assistant', [{ type: 'text', text: long('alpha', 40) }], 'a1'), msg('assistant', [{ type: 'text', text: long('beta', 30) }], 'a2')]
    await withFile(v1, async (file) => {
      const ask = () => Promise.all(['alpha', 'beta', 'some alpha', 'at&t', 'item beta'].map((q) => findInTranscriptFile(file, q, 10)))
      const uncached = async () => {
        clearRenderedPieces()
        return ask()
      }
      const first = await ask()
      expect(first.map((f) => f.occurrences)).toEqual([80, 60, 40, 70, 30])
      expect(await ask()).toEqual(first)
      // edited in place (same id, new text)
      fs.writeFileSync(file, [v1[0], msg('assistant', [{ type: 'text', text: long('alpha', 12) }], 'a1'), v1[2]].join('\n'))
      const edited = await ask()
      expect(edited.map((f) => f.occurrences)).toEqual([24, 60, 12, 42, 30])
      expect(await uncached()).toEqual(edited)
      await ask()
      // regenerated: the last reply replaced by another with a new id
      fs.writeFileSync(file, [v1[0], v1[1], msg('assistant', [{ type: 'text', text: long('gamma', 5) }], 'a3')].join('\n'))
      const regenerated = await ask()
      expect(regenerated[1]).toEqual({ matches: [], total: 0, occurrences: 0 })
      expect(regenerated[0].matches).toEqual([{ messageId: 'a1', role: 'assistant', count: 80 }])
      expect(await uncached()).toEqual(regenerated)
      await ask()
      // compacted: a summary in place of the old messages
      fs.writeFileSync(file, [msg('user', 'summary: alpha and beta were discussed', 'c1'), v1[2]].join('\n'))
      const compacted = await ask()
      expect(compacted.map((f) => f.total)).toEqual([1, 2, 0, 1, 1])
      expect(await uncached()).toEqual(compacted)
      await ask()
      // a reply appended, then one edited in place to text of the same length (a later modification time)
      fs.appendFileSync(file, `\n${msg('assistant', [{ type: 'text', text: 'more **alpha**' }], 'a9')}`)
      expect((await ask())[0].total).toBe(2)
      const same = fs.readFileSync(file, 'utf8').replace('more **alpha**', 'more **gamma**')
      fs.writeFileSync(file, same)
      const later = new Date(Date.now() + 5_000)
      fs.utimesSync(file, later, later)
      expect((await ask())[0].total).toBe(1)
      // deleted
      fs.writeFileSync(file, '')
      expect((await ask()).every((f) => f.total === 0)).toBe(true)
    })
  })
})

describe('loopdesk.sessions.search (real runtime)', () => {
  let server: ModelServer
  let rt: TestRuntime
  beforeAll(async () => {
    server = await startModelServer({ fallback: { text: 'ok' } })
    rt = await startTestRuntime(server)
    server.push({ text: 'The capital of Mongolia is Ulaanbaatar.', chunks: 2 }, { text: 'Paris it is.', chunks: 1 })
    await rt.call('agent', { message: 'capital of mongolia?', sessionKey: 'agent:main:geo', idempotencyKey: 's1' })
    await rt.call('agent.wait', { runId: 's1', timeoutMs: 10_000 })
    await rt.call('agent', { message: 'and of france?', sessionKey: 'agent:main:geo2', idempotencyKey: 's2' })
    await rt.call('agent.wait', { runId: 's2', timeoutMs: 10_000 })
  })
  afterAll(async () => {
    await rt?.close()
    await server?.close()
  })

  it('returns the sessions whose messages match, newest first, with the matching message', async () => {
    expect(await rt.call('loopdesk.sessions.search', { query: 'ulaanbaatar' })).toEqual({
      matches: [{ key: 'agent:main:geo', messageId: expect.any(String), role: 'assistant', snippet: '…of Mongolia is Ulaanbaatar.' }],
      partial: false,
    })
    // the match's id is its chat.history row id: a window around it starts from that message
    const [hit] = (await rt.call('loopdesk.sessions.search', { query: 'ulaanbaatar' })).matches
    const around = await rt.call('chat.history', { sessionKey: 'agent:main:geo', messageId: hit.messageId, limit: 1 })
    expect(around.messages.map((m) => [m.role, m.__openclaw?.id])).toEqual([['assistant', hit.messageId]])
    const both = await rt.call('loopdesk.sessions.search', { query: 'of ' })
    expect(both.matches.map((m) => m.key)).toEqual(['agent:main:geo2', 'agent:main:geo'])
    expect((await rt.call('loopdesk.sessions.search', { query: 'of ', limit: 1 })).matches).toHaveLength(1)
    expect((await rt.call('loopdesk.sessions.search', { query: 'nowhere to be found' })).matches).toEqual([])
  })
  it('stops at its time budget and says the answer is partial', async () => {
    const h = searchHandlers(rt.runtime.core, { budgetMs: -1 })
    expect(await h['loopdesk.sessions.search']({ query: 'of ' }, { transport: 'local' } as never)).toEqual({ matches: [], partial: true })
  })
  it('rejects an empty or oversized query', async () => {
    expect((await rt.raw('loopdesk.sessions.search', { query: '' })).ok).toBe(false)
    expect((await rt.raw('loopdesk.sessions.search', { query: 'x'.repeat(201) })).ok).toBe(false)
  })

  it('loopdesk.chat.find: every matching message of one session, oldest first, with their row ids', async () => {
    const found = await rt.call('loopdesk.chat.find', { sessionKey: 'agent:main:geo', query: 'MONGOLIA' })
    expect(found.total).toBe(2)
    expect(found.partial).toBe(false)
    expect(found.matches.map((m) => m.role)).toEqual(['user', 'assistant'])
    const rows = await rt.call('chat.history', { sessionKey: 'agent:main:geo' })
    expect(found.matches.map((m) => m.messageId)).toEqual(rows.messages.map((m) => m.__openclaw?.id))
    // bounded: the newest `limit` listed, all counted
    expect(await rt.call('loopdesk.chat.find', { sessionKey: 'agent:main:geo', query: 'mongolia', limit: 1 })).toEqual({
      matches: [found.matches[1]],
      total: 2,
      occurrences: 2,
      partial: false,
    })
    // only that session; an unknown session has none
    expect((await rt.call('loopdesk.chat.find', { sessionKey: 'agent:main:geo2', query: 'mongolia' })).total).toBe(0)
    expect(await rt.call('loopdesk.chat.find', { sessionKey: 'agent:main:nothing-here', query: 'mongolia' })).toEqual({ matches: [], total: 0, occurrences: 0, partial: false })
  })
  it('loopdesk.chat.find validates its params (closed schema, bounded query and limit)', async () => {
    expect((await rt.raw('loopdesk.chat.find', { sessionKey: 'agent:main:geo', query: '' })).ok).toBe(false)
    expect((await rt.raw('loopdesk.chat.find', { sessionKey: 'agent:main:geo', query: 'x'.repeat(201) })).ok).toBe(false)
    expect((await rt.raw('loopdesk.chat.find', { query: 'x' })).ok).toBe(false)
    expect((await rt.raw('loopdesk.chat.find', { sessionKey: 'agent:main:geo', query: 'x', limit: 2001 })).ok).toBe(false)
    expect((await rt.raw('loopdesk.chat.find', { sessionKey: 'agent:main:geo', query: 'x', limit: 0 })).ok).toBe(false)
    expect((await rt.raw('loopdesk.chat.find', { sessionKey: 'agent:main:geo', query: 'x', offset: 1 })).ok).toBe(false)
  })
})
