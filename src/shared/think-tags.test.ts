import { describe, expect, it } from 'vitest'
import { promoteThinkTags, splitThinkTags, ThinkTagParser, type ThinkPart } from './think-tags'

/** Feeds `deltas` and returns the visible text, the reasoning text and the markers, as a consumer sees them. */
function stream(deltas: string[], startInside = false) {
  const p = new ThinkTagParser({ startInside })
  const parts: ThinkPart[] = []
  for (const d of deltas) parts.push(...p.push(d))
  parts.push(...p.end())
  let text = ''
  let reasoning = ''
  const marks: string[] = []
  for (const part of parts) {
    if (part.kind === 'text') text += part.text
    else if (part.kind === 'reasoning') reasoning += part.text
    else marks.push(part.kind)
  }
  return { text, reasoning, marks }
}

describe('think tags', () => {
  it('a block at the start is reasoning; the reply after it is the text, its leading blank lines dropped', () => {
    expect(splitThinkTags('<think>\nThe user greets me.\n</think>\n\nHello!')).toEqual({
      tagged: true,
      text: 'Hello!',
      reasoning: ['The user greets me.'],
      parts: [
        { type: 'thinking', thinking: 'The user greets me.' },
        { type: 'text', text: 'Hello!' },
      ],
      strayClose: false,
    })
    for (const tag of ['thinking', 'thought', 'antthinking', 'THINK', 'Thinking']) {
      expect(splitThinkTags(`<${tag}>plan</${tag}>Answer`).text).toBe('Answer')
    }
  })

  it('gives the same result whatever the deltas are split at (tags cut anywhere, one character at a time)', () => {
    const text = 'Intro line\n<think>step 1 </think>\n\nAnswer with `<think>` in code and a < b.\n<thinking>again</thinking>Done'
    const whole = stream([text])
    expect(whole.text).toBe('Intro line\nAnswer with `<think>` in code and a < b.\nDone')
    expect(whole.reasoning).toBe('step 1 again')
    expect(whole.marks).toEqual(['open', 'close', 'open', 'close'])
    for (let i = 1; i < text.length; i++) expect(stream([text.slice(0, i), text.slice(i)])).toEqual(whole)
    expect(stream([...text])).toEqual(whole)
  })

  it('an unclosed block at the end is reasoning to the end; a partial tag at the end is text', () => {
    expect(stream(['<think>still thinking when cut'])).toEqual({ text: '', reasoning: 'still thinking when cut', marks: ['open', 'close'] })
    expect(splitThinkTags('<think>cut off')).toMatchObject({ tagged: true, text: '', reasoning: ['cut off'] })
    expect(stream(['I love you <', '3'])).toMatchObject({ text: 'I love you <3' })
    expect(stream(['a is <thi'])).toMatchObject({ text: 'a is <thi', marks: [] })
    expect(splitThinkTags('x <thin')).toMatchObject({ tagged: false, text: 'x <thin' })
  })

  it('a closing tag with no opener makes what came before it reasoning (template-opened blocks)', () => {
    expect(splitThinkTags('The user wants a number.\n</think>\n\n42')).toMatchObject({
      tagged: true,
      strayClose: true,
      text: '42',
      reasoning: ['The user wants a number.'],
    })
    expect(stream(['plan', '</thi', 'nk>\n\nanswer'])).toEqual({ text: 'plananswer', reasoning: '', marks: ['strayClose'] })
    // a model whose template opens the block: the text starts as reasoning
    expect(stream(['plan</think>', '\nanswer'], true)).toEqual({ text: 'answer', reasoning: 'plan', marks: ['close'] })
    expect(splitThinkTags('plan</think>answer', { startInside: true })).toMatchObject({ text: 'answer', reasoning: ['plan'], strayClose: false })
    // started inside by the model's habit but no tag at all: plain text after all
    expect(splitThinkTags('only an answer', { startInside: true })).toMatchObject({ tagged: false, text: 'only an answer', reasoning: [] })
    // a further closing tag after a block is dropped, not shown
    expect(splitThinkTags('<think>a</think>b</think>c').text).toBe('bc')
  })

  it('tags inside code fences and inline code are text: the model is talking about them', () => {
    const fenced = 'Use this:\n```xml\n<think>\nhidden?\n</think>\n```\nThat is all.'
    expect(splitThinkTags(fenced)).toMatchObject({ tagged: false, text: fenced })
    const tilde = '~~~~\n</think>\n~~~~\n<think>real</think>after'
    expect(splitThinkTags(tilde)).toMatchObject({ text: '~~~~\n</think>\n~~~~\nafter', reasoning: ['real'] })
    const inline = 'Models write `<think>` and ``</think>`` around reasoning.'
    expect(splitThinkTags(inline)).toMatchObject({ tagged: false, text: inline })
    // a stray backtick does not hide the tags of the following lines
    expect(splitThinkTags('it`s\n<think>x</think>y')).toMatchObject({ text: 'it`s\ny', reasoning: ['x'] })
  })

  it('an opening tag inside a line of prose is text; inside a block it is reasoning text', () => {
    const prose = 'Wrap your notes in <think> tags, then answer.'
    expect(splitThinkTags(prose)).toMatchObject({ tagged: false, text: prose })
    expect(splitThinkTags('  <think>indented</think>ok')).toMatchObject({ text: '  ok', reasoning: ['indented'] })
    expect(splitThinkTags('<think>a <think> b</think>c')).toMatchObject({ text: 'c', reasoning: ['a <think> b'] })
  })

  it('NO_REPLY after a block is the silent token alone', () => {
    expect(splitThinkTags('<think>nothing to add</think>\nNO_REPLY').text).toBe('NO_REPLY')
  })

  it('is linear in the text: long adversarial inputs take milliseconds', () => {
    const inputs = ['<thinkin'.repeat(40_000), '`'.repeat(300_000), '<think>'.repeat(40_000), '\n```\n<'.repeat(50_000), '</think>'.repeat(40_000)]
    for (const input of inputs) {
      const t0 = performance.now()
      const p = new ThinkTagParser()
      for (let i = 0; i < input.length; i += 7) p.push(input.slice(i, i + 7))
      p.end()
      splitThinkTags(input)
      expect(performance.now() - t0).toBeLessThan(1500)
    }
  })

  it('promoteThinkTags turns tagged text blocks into thinking + text blocks and leaves other content alone', () => {
    const call = { type: 'toolCall', id: 'c1', name: 'read', arguments: {} }
    expect(promoteThinkTags([{ type: 'text', text: '<think>look</think>Reading.' }, call])).toEqual([
      { type: 'thinking', thinking: 'look' },
      { type: 'text', text: 'Reading.' },
      call,
    ])
    expect(promoteThinkTags([{ type: 'text', text: 'plain' }, call])).toBeUndefined()
    expect(promoteThinkTags('string content')).toBeUndefined()
    expect(promoteThinkTags([{ type: 'text', text: 'plan</think>ok' }], { startInside: true })).toEqual([
      { type: 'thinking', thinking: 'plan' },
      { type: 'text', text: 'ok' },
    ])
  })
})
