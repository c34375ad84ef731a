import { describe, expect, it } from 'vitest'
import type { PayloadInput } from '../contracts'
import { buildPayloads, errorDetail, formatToolSummary, isDuplicateOfSent, isSilentPrefix, isSilentReply } from './index'

const base = (over: Partial<PayloadInput> = {}): PayloadInput => ({
  assistantTexts: [],
  reasoningTexts: [],
  reasoningMode: 'off',
  verbose: 'off',
  toolSummaries: [],
  messagingSent: [],
  ...over,
})

describe('isSilentReply', () => {
  it('matches the whole text only, case-insensitive, trimmed', () => {
    for (const t of ['NO_REPLY', 'no_reply', '  No_Reply \n', '\tNO_REPLY', '{"action":"NO_REPLY"}', ' { "action" : "no_reply" } ']) {
      expect(isSilentReply(t)).toBe(true)
    }
    for (const t of ['NO_REPLY.', 'NO_REPLY please', 'say NO_REPLY', 'NO REPLY', '', '{"action":"NO_REPLY","x":1}', '{"text":"NO_REPLY"}']) {
      expect(isSilentReply(t)).toBe(false)
    }
  })
})

describe('isSilentPrefix', () => {
  it('holds the start of the token or of its JSON envelope, and nothing that has left both', () => {
    for (const t of ['N', 'no_', ' NO_REPLY', '{', '{"', '{ "act', '{"action": "NO_RE', '{"action":"NO_REPLY"}']) {
      expect(isSilentPrefix(t)).toBe(true)
    }
    for (const t of ['', 'No problem', 'NO_REPLY.', '{"name"', '{"action":"run"', '[', `{${' '.repeat(300)}"action"`]) {
      expect(isSilentPrefix(t)).toBe(false)
    }
  })
})

describe('buildPayloads', () => {
  it('returns assistant texts', () => {
    expect(buildPayloads(base({ assistantTexts: ['Hello', 'World'] }))).toEqual([{ text: 'Hello' }, { text: 'World' }])
  })

  it('drops NO_REPLY variants and empty texts', () => {
    expect(buildPayloads(base({ assistantTexts: ['NO_REPLY', ' no_reply\n', '   ', ''] }))).toEqual([])
    expect(buildPayloads(base({ assistantTexts: ['NO_REPLY', 'real answer'] }))).toEqual([{ text: 'real answer' }])
  })

  it('adds reasoning as a separate payload only when reasoningMode is on', () => {
    const input = { assistantTexts: ['Answer'], reasoningTexts: ['because...'] }
    expect(buildPayloads(base({ ...input, reasoningMode: 'on' }))).toEqual([{ text: 'because...', isReasoning: true }, { text: 'Answer' }])
    expect(buildPayloads(base({ ...input, reasoningMode: 'off' }))).toEqual([{ text: 'Answer' }])
    expect(buildPayloads(base({ ...input, reasoningMode: 'stream' }))).toEqual([{ text: 'Answer' }])
  })

  it('inlines tool summaries only when verbose is on or full', () => {
    const input = { assistantTexts: ['Done'], toolSummaries: [formatToolSummary('exec', 'ls'), formatToolSummary('read', 'a.ts')] }
    expect(buildPayloads(base({ ...input, verbose: 'off' }))).toEqual([{ text: 'Done' }])
    const on = buildPayloads(base({ ...input, verbose: 'on' }))
    expect(on).toEqual([{ text: '🔧 exec: ls' }, { text: '🔧 read: a.ts' }, { text: 'Done' }])
    expect(buildPayloads(base({ ...input, verbose: 'full' }))).toEqual(on)
  })

  it('appends the model error text as an error payload', () => {
    expect(buildPayloads(base({ assistantTexts: ['partial'], errorText: '500: boom' }))).toEqual([
      { text: 'partial' },
      { text: '500: boom', isError: true },
    ])
  })

  it('removes texts already sent by the message tool (normalized, containment both ways ≥10 chars)', () => {
    const sent = ['I have   finished the REPORT for you.']
    const out = buildPayloads(
      base({
        messagingSent: sent,
        assistantTexts: [
          'i have finished the report for you.', // same after normalization
          'I have finished the report for you. Anything else?', // contains the sent text
          'finished the report', // contained in the sent text
          'Something different entirely',
        ],
      }),
    )
    expect(out).toEqual([{ text: 'Something different entirely' }])
  })

  it('short texts dedupe only on exact normalized equality', () => {
    const out = buildPayloads(base({ messagingSent: ['OK done'], assistantTexts: ['ok  DONE', 'done', 'OK'] }))
    expect(out).toEqual([{ text: 'done' }, { text: 'OK' }])
    expect(isDuplicateOfSent('✅ Report ready now!', ['report ready now!'])).toBe(true)
  })

  it('one fallback warning when nothing renderable remains and a tool failed', () => {
    const lastToolError = { toolName: 'exec', meta: 'ls /nope', error: 'Command exited with code 2\n\nls: cannot access' }
    expect(buildPayloads(base({ lastToolError }))).toEqual([{ text: '⚠️ exec (ls /nope) failed: Command exited with code 2', isError: true }])
    expect(buildPayloads(base({ lastToolError, assistantTexts: ['NO_REPLY'] }))).toHaveLength(1)
    // reasoning alone does not count as a reply
    expect(buildPayloads(base({ lastToolError, reasoningMode: 'on', reasoningTexts: ['hmm'] }))).toEqual([
      { text: 'hmm', isReasoning: true },
      { text: '⚠️ exec (ls /nope) failed: Command exited with code 2', isError: true },
    ])
  })

  it('no fallback when there is a reply, an error text, or a visible message-tool send', () => {
    const lastToolError = { toolName: 'read', error: 'File not found' }
    expect(buildPayloads(base({ lastToolError, assistantTexts: ['Sorry, could not read it'] }))).toEqual([{ text: 'Sorry, could not read it' }])
    expect(buildPayloads(base({ lastToolError, errorText: 'model failed' }))).toEqual([{ text: 'model failed', isError: true }])
    // message tool already delivered a visible reply: its duplicate is removed and no fallback is added
    expect(buildPayloads(base({ lastToolError, messagingSent: ['Here is your summary.'], assistantTexts: ['Here is your summary.'] }))).toEqual([])
    // a silent message-tool send does not count as visible
    expect(buildPayloads(base({ lastToolError, messagingSent: ['NO_REPLY'] }))).toEqual([{ text: '⚠️ read failed: File not found', isError: true }])
  })

  it('verbose tool summaries count as renderable', () => {
    const out = buildPayloads(base({ verbose: 'on', toolSummaries: ['🔧 read: x'], lastToolError: { toolName: 'read', error: 'boom' } }))
    expect(out).toEqual([{ text: '🔧 read: x' }])
  })
})

describe('errorDetail', () => {
  it('takes the first non-empty line, at most 400 chars', () => {
    expect(errorDetail('\n\n  first line  \nsecond')).toBe('first line')
    const long = errorDetail('e'.repeat(1000))
    expect([...long].length).toBe(400)
    expect(long.endsWith('…')).toBe(true)
    expect(errorDetail('')).toBe('')
  })
})
