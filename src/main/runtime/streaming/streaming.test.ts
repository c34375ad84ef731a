import { describe, expect, it } from 'vitest'
import type { AgentEvent as PiEvent } from '@earendil-works/pi-agent-core'
import type { BlockData } from '../../../shared/events'
import { BlockChunker } from './chunker'
import { BlockStreamer } from './block-streamer'
import { fenceAt, findFences } from './fences'
import { ReasoningStream } from './reasoning'

/** feeds `text` in small deltas */
function stream(ch: BlockChunker, text: string, size = 7): void {
  for (let i = 0; i < text.length; i += size) ch.push(text.slice(i, i + size))
}

function fenceLines(block: string): number {
  return block.split('\n').filter((l) => /^ {0,3}(```|~~~)/.test(l)).length
}

const para = (tag: string, n: number) => `${tag} ` + 'word '.repeat(n).trim() + '.'

describe('findFences', () => {
  it('finds closed, open, tilde and indented fences', () => {
    const t = 'a\n```ts\ncode\n```\nb\n  ~~~~\nx\n~~~~\n```js\nopen'
    const f = findFences(t)
    expect(f).toHaveLength(3)
    expect(f[0]).toMatchObject({ start: 2, openLine: '```ts', marker: '```' })
    expect(t.slice(f[0].start, f[0].end)).toBe('```ts\ncode\n```')
    expect(f[1]).toMatchObject({ openLine: '~~~~', marker: '~~~~' })
    expect(f[2]).toMatchObject({ openLine: '```js', end: Infinity })
    expect(fenceAt(f, 5)).toBe(f[0])
    expect(fenceAt(f, f[0].end)).toBeUndefined()
    expect(fenceAt(f, 2)).toBeUndefined()
  })

  it('a shorter or different marker does not close a fence', () => {
    const f = findFences('````\n```\n~~~\n````\n')
    expect(f).toHaveLength(1)
    expect(f[0].end).toBe('````\n```\n~~~\n````'.length)
  })
})

describe('BlockChunker', () => {
  const text = [para('P1', 60), para('P2', 60), para('P3', 60), para('P4', 10)].join('\n\n')

  it('text_end: emits blocks progressively at paragraph breaks and flushes the rest on text_end', () => {
    const blocks: string[] = []
    const ch = new BlockChunker({ breakMode: 'text_end', minChars: 200, maxChars: 400, onBlock: (b) => blocks.push(b) })
    stream(ch, text)
    expect(blocks.length).toBeGreaterThanOrEqual(2) // went out while streaming
    const before = blocks.length
    ch.textEnd()
    expect(blocks.length).toBe(before + 1)
    expect(blocks.join('\n\n')).toBe(text)
    for (const b of blocks) expect(b.length).toBeLessThanOrEqual(400)
    expect(blocks[0].startsWith('P1')).toBe(true)
    expect(blocks[0].endsWith('.')).toBe(true)
    expect(ch.pending).toBe('')
  })

  it('message_end: nothing goes out until the message ends, then split over maxChars', () => {
    const blocks: string[] = []
    const ch = new BlockChunker({ breakMode: 'message_end', minChars: 200, maxChars: 400, onBlock: (b) => blocks.push(b) })
    stream(ch, text)
    ch.textEnd()
    expect(blocks).toEqual([])
    ch.messageEnd()
    expect(blocks.length).toBeGreaterThan(1)
    expect(blocks.join('\n\n')).toBe(text)
    for (const b of blocks) expect(b.length).toBeLessThanOrEqual(400)
  })

  it('message_end with short text sends exactly one block', () => {
    const blocks: string[] = []
    const ch = new BlockChunker({ breakMode: 'message_end', onBlock: (b) => blocks.push(b) })
    stream(ch, 'Hello there.\n\nShort answer.')
    ch.messageEnd()
    expect(blocks).toEqual(['Hello there.\n\nShort answer.'])
  })

  it('never splits inside a code fence that fits (the break moves outside it)', () => {
    const code = '```ts\n' + Array.from({ length: 12 }, (_, i) => `const v${i} = ${i}\n`).join('') + '\n// part two\n' + 'let z = 1\n```'
    const t = `${para('Intro', 30)}\n\n${code}\n\n${para('After', 30)}`
    for (const mode of ['text_end', 'message_end'] as const) {
      const blocks: string[] = []
      const ch = new BlockChunker({ breakMode: mode, minChars: 120, maxChars: 400, onBlock: (b) => blocks.push(b) })
      stream(ch, t, 5)
      ch.textEnd()
      ch.messageEnd()
      for (const b of blocks) expect(fenceLines(b) % 2, `${mode}: ${b}`).toBe(0)
      expect(blocks.join('\n\n')).toBe(t)
      expect(blocks.some((b) => b.includes('// part two') && b.includes('const v0'))).toBe(true)
    }
  })

  it('a fence longer than maxChars is closed at the split and re-opened with its info string', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `print("line ${i}")`)
    const t = 'Here is the script:\n\n```python\n' + lines.join('\n') + '\n```\n\nDone.'
    const blocks: string[] = []
    const ch = new BlockChunker({ breakMode: 'text_end', minChars: 100, maxChars: 300, onBlock: (b) => blocks.push(b) })
    stream(ch, t, 9)
    ch.textEnd()
    expect(blocks.length).toBeGreaterThan(3)
    for (const b of blocks) {
      expect(b.length).toBeLessThanOrEqual(300)
      expect(fenceLines(b) % 2, b).toBe(0)
    }
    const middle = blocks.filter((b) => b.includes('print('))
    for (const b of middle) {
      expect(b.startsWith('```python\n') || b.startsWith('Here is')).toBe(true)
      expect(b.endsWith('```')).toBe(true)
    }
    // every code line survives exactly once, in order
    const got = blocks.flatMap((b) => b.split('\n')).filter((l) => l.startsWith('print('))
    expect(got).toEqual(lines)
    expect(blocks.at(-1)).toBe('Done.')
  })

  it('hard-splits a word longer than maxChars; splits at sentence ends when there are no newlines', () => {
    const blocks: string[] = []
    const ch = new BlockChunker({ breakMode: 'message_end', minChars: 20, maxChars: 50, onBlock: (b) => blocks.push(b) })
    ch.push('x'.repeat(120))
    ch.messageEnd()
    expect(blocks.map((b) => b.length)).toEqual([50, 50, 20])
    blocks.length = 0
    ch.push('First sentence is here. Second sentence is here. Third one.')
    ch.messageEnd()
    expect(blocks).toEqual(['First sentence is here. Second sentence is here.', 'Third one.'])
  })

  it('flushBeforeTool sends pending text; reset drops it', () => {
    const blocks: string[] = []
    const ch = new BlockChunker({ breakMode: 'message_end', onBlock: (b) => blocks.push(b) })
    ch.push('Let me check the file.')
    ch.flushBeforeTool()
    expect(blocks).toEqual(['Let me check the file.'])
    ch.push('half-written')
    ch.reset()
    ch.messageEnd()
    expect(blocks).toEqual(['Let me check the file.'])
    ch.push('   \n ')
    ch.flush()
    expect(blocks).toHaveLength(1) // whitespace-only blocks are not sent
  })
})

describe('reasoning', () => {
  it('stream mode emits cumulative thinking events; on mode reports finished blocks; off does nothing', () => {
    const events: Array<{ text: string; delta: string }> = []
    const blocks: string[] = []
    const s = new ReasoningStream({ mode: 'stream', emitThinking: (d) => events.push(d), onReasoningBlock: (t) => blocks.push(t) })
    s.delta('Let me ')
    s.delta('think.')
    s.end()
    expect(events).toEqual([
      { text: 'Let me ', delta: 'Let me ' },
      { text: 'Let me think.', delta: 'think.' },
    ])
    expect(blocks).toEqual([])
    expect(s.texts()).toEqual(['Let me think.'])

    const on = new ReasoningStream({ mode: 'on', emitThinking: (d) => events.push(d), onReasoningBlock: (t) => blocks.push(t) })
    on.delta('partial')
    on.end('partial and complete')
    expect(blocks).toEqual(['partial and complete'])
    expect(events).toHaveLength(2)

    const off = new ReasoningStream({ mode: 'off', emitThinking: (d) => events.push(d), onReasoningBlock: (t) => blocks.push(t) })
    off.delta('secret')
    off.end()
    expect(off.texts()).toEqual([])
    expect(events).toHaveLength(2)
    expect(blocks).toHaveLength(1)
  })
})

describe('BlockStreamer (pi events)', () => {
  const ev = (e: unknown) => e as PiEvent
  const start = ev({ type: 'message_start', message: { role: 'assistant', content: [] } })
  const delta = (d: string, i = 0) => ev({ type: 'message_update', message: {}, assistantMessageEvent: { type: 'text_delta', contentIndex: i, delta: d } })
  const textEnd = (content: string, i = 0) => ev({ type: 'message_update', message: {}, assistantMessageEvent: { type: 'text_end', contentIndex: i, content } })
  const thinkDelta = (d: string) => ev({ type: 'message_update', message: {}, assistantMessageEvent: { type: 'thinking_delta', contentIndex: 0, delta: d } })
  const thinkEnd = (c: string) => ev({ type: 'message_update', message: {}, assistantMessageEvent: { type: 'thinking_end', contentIndex: 0, content: c } })
  const end = (text: string) => ev({ type: 'message_end', message: { role: 'assistant', content: [{ type: 'text', text }] } })
  const tool = ev({ type: 'tool_execution_start', toolCallId: 't1', toolName: 'read', args: {} })

  it('text_end: a block per text block, flushed before the tool starts', () => {
    const out: BlockData[] = []
    const s = new BlockStreamer({ breakMode: 'text_end', reasoningMode: 'off', emitBlock: (b) => out.push(b) })
    for (const e of [start, delta('Checking '), delta('the file.'), textEnd('Checking the file.'), tool]) s.listener(e)
    expect(out).toEqual([{ text: 'Checking the file.' }])
    for (const e of [start, delta('It says '), delta('hello.'), textEnd('It says hello. Done.'), end('It says hello. Done.')]) s.listener(e)
    expect(out).toEqual([{ text: 'Checking the file.' }, { text: 'It says hello. Done.' }])
  })

  it('message_end: one block at the end of the message; pending text goes out before a tool', () => {
    const out: BlockData[] = []
    const s = new BlockStreamer({ breakMode: 'message_end', reasoningMode: 'off', emitBlock: (b) => out.push(b) })
    for (const e of [start, delta('Part one. '), textEnd('Part one. '), delta('Part two.', 1), textEnd('Part two.', 1)]) s.listener(e)
    expect(out).toEqual([])
    s.listener(end('Part one. Part two.'))
    expect(out).toEqual([{ text: 'Part one. Part two.' }])
    for (const e of [start, delta('Running it'), tool]) s.listener(e)
    expect(out.at(-1)).toEqual({ text: 'Running it' })
  })

  it('final-only text (no deltas) still becomes a block; reasoning `on` goes first as its own block', () => {
    const out: BlockData[] = []
    const s = new BlockStreamer({ breakMode: 'message_end', reasoningMode: 'on', emitBlock: (b) => out.push(b) })
    for (const e of [start, thinkDelta('consider '), thinkEnd('consider options'), end('The answer.')]) s.listener(e)
    expect(out).toEqual([{ text: 'consider options', isReasoning: true }, { text: 'The answer.' }])
    // providers that end the thinking block only at the end of the message: reasoning still goes first
    const late: BlockData[] = []
    const s3 = new BlockStreamer({ breakMode: 'text_end', reasoningMode: 'on', emitBlock: (b) => late.push(b) })
    for (const e of [start, thinkDelta('plan'), delta('Answer.'), textEnd('Answer.'), thinkEnd('plan'), end('Answer.')]) s3.listener(e)
    expect(late).toEqual([{ text: 'plan', isReasoning: true }, { text: 'Answer.' }])
    const quiet: BlockData[] = []
    const s2 = new BlockStreamer({ breakMode: 'text_end', reasoningMode: 'stream', emitBlock: (b) => quiet.push(b) })
    for (const e of [start, thinkDelta('x'), thinkEnd('x'), delta('ok'), textEnd('ok')]) s2.listener(e)
    expect(quiet).toEqual([{ text: 'ok' }])
  })

  it('<think>-tagged text: blocks carry the reply alone; reasoning `on` is its own block, ahead of the answer', () => {
    const out: BlockData[] = []
    const s = new BlockStreamer({ breakMode: 'text_end', reasoningMode: 'on', emitBlock: (b) => out.push(b) })
    for (const e of [start, delta('<thi'), delta('nk>check the '), delta('notes</thi'), delta('nk>\n\nAll '), delta('good.'), textEnd('<think>check the notes</think>\n\nAll good.')]) s.listener(e)
    expect(out).toEqual([{ text: 'check the notes', isReasoning: true }, { text: 'All good.' }])
    const off: BlockData[] = []
    const s2 = new BlockStreamer({ breakMode: 'message_end', reasoningMode: 'off', emitBlock: (b) => off.push(b) })
    // a closing tag with no opener: what was pending before it is not sent
    for (const e of [start, delta('plan it'), delta('</think>ok'), end('plan it</think>ok')]) s2.listener(e)
    expect(off).toEqual([{ text: 'ok' }])
    // text only with the final message
    const late: BlockData[] = []
    const s3 = new BlockStreamer({ breakMode: 'message_end', reasoningMode: 'on', emitBlock: (b) => late.push(b) })
    for (const e of [start, end('<think>why</think>Because.')]) s3.listener(e)
    expect(late).toEqual([{ text: 'why', isReasoning: true }, { text: 'Because.' }])
  })

  it('reset drops pending text (compaction retry) and a throwing emitter never escapes the listener', () => {
    const out: BlockData[] = []
    const s = new BlockStreamer({ breakMode: 'message_end', reasoningMode: 'off', emitBlock: (b) => out.push(b) })
    for (const e of [start, delta('stale text')]) s.listener(e)
    s.reset()
    for (const e of [start, delta('fresh'), end('fresh')]) s.listener(e)
    expect(out).toEqual([{ text: 'fresh' }])
    const errors: unknown[] = []
    const bad = new BlockStreamer({
      breakMode: 'text_end',
      reasoningMode: 'off',
      emitBlock: () => {
        throw new Error('sink down')
      },
      onError: (e) => errors.push(e),
    })
    expect(() => [start, delta('x'), textEnd('x')].forEach((e) => bad.listener(e))).not.toThrow()
    expect(errors).toHaveLength(1)
  })
})
