import { describe, expect, it } from 'vitest'
import { toolMeta, isMessagingTool } from './meta'
import { capToolResultForPersist, EVENT_TEXT_MAX_CHARS, PERSIST_TEXT_MAX_CHARS, sanitizeToolResultForEvent } from './sanitize'
import { toolCatalog } from './catalog'

const deepFreeze = <T>(o: T): T => {
  if (o && typeof o === 'object') {
    Object.freeze(o)
    for (const v of Object.values(o)) deepFreeze(v)
  }
  return o
}

describe('sanitizeToolResultForEvent', () => {
  it('cuts text blocks to 8,000 chars with a marker and omits image data', () => {
    const input = deepFreeze({
      content: [
        { type: 'text', text: 'x'.repeat(10_000) },
        { type: 'image', data: 'A'.repeat(1234), mimeType: 'image/png' },
        { type: 'text', text: 'short' },
      ],
      details: { exitCode: 0 },
    })
    const out = sanitizeToolResultForEvent(input) as { content: any[]; details: unknown }
    expect(out.content[0].text).toMatch(/^x{2350,2400}\n\[output truncated: 1 line, 10,000 characters; kept the first 1 and last 1 line\]\nx{5400,5600}$/)
    expect(out.content[0].text.length).toBeLessThanOrEqual(EVENT_TEXT_MAX_CHARS)
    expect(out.content[1]).toEqual({ type: 'image', mimeType: 'image/png', bytes: 1234, omitted: true })
    expect(out.content[2]).toBe(input.content[2])
    expect(out.details).toEqual({ exitCode: 0 })
    expect((input.content[0] as { text: string }).text.length).toBe(10_000) // input untouched (frozen anyway)
  })

  it('keeps exactly-8,000-char text and passes odd shapes through', () => {
    const t = 'y'.repeat(EVENT_TEXT_MAX_CHARS)
    expect((sanitizeToolResultForEvent({ content: [{ type: 'text', text: t }] }) as any).content[0].text).toBe(t)
    expect(sanitizeToolResultForEvent(null)).toBe(null)
    expect(sanitizeToolResultForEvent(42)).toBe(42)
    expect(sanitizeToolResultForEvent({ foo: 1 })).toEqual({ foo: 1 })
    expect((sanitizeToolResultForEvent('z'.repeat(9000)) as string).length).toBeLessThanOrEqual(EVENT_TEXT_MAX_CHARS)
    expect(sanitizeToolResultForEvent([{ type: 'image', data: 'AAAA' }])).toEqual([{ type: 'image', bytes: 4, omitted: true }])
  })
})

describe('capToolResultForPersist', () => {
  const msg = (content: unknown[]) => deepFreeze({ role: 'toolResult', toolCallId: 'c', toolName: 'exec', content, isError: false, timestamp: 1 })
  const textLen = (m: any) => m.content.filter((b: any) => b.type === 'text').reduce((n: number, b: any) => n + b.text.length, 0)

  it('returns the same message when under the cap', () => {
    const m = msg([{ type: 'text', text: 'a'.repeat(PERSIST_TEXT_MAX_CHARS) }])
    expect(capToolResultForPersist(m)).toBe(m)
  })

  it('caps total text at 40,000 keeping its start and (most of) its end, the middle cut with a notice; images kept', () => {
    const img = { type: 'image', data: 'B'.repeat(100_000), mimeType: 'image/png' }
    const m = msg([{ type: 'text', text: 'h'.repeat(30_000) }, img, { type: 'text', text: 'm'.repeat(30_000) }, { type: 'text', text: 'the end' }])
    const out = capToolResultForPersist(m) as any
    expect(out).not.toBe(m)
    expect(textLen(out)).toBeLessThanOrEqual(PERSIST_TEXT_MAX_CHARS)
    expect(textLen(out)).toBeGreaterThan(PERSIST_TEXT_MAX_CHARS - 200)
    expect(out.content[0].text).toMatch(/^h{11000,12000}\n\[output truncated: 1 line, 60,007 characters; kept the first 1 and last 1 line\]$/)
    expect(out.content[1]).toBe(img)
    expect(out.content[2].text).toMatch(/^m{27000,28000}$/)
    expect(out.content[3]).toEqual({ type: 'text', text: 'the end' })
    expect(out.toolCallId).toBe('c')
    expect(m.content[2]).toEqual({ type: 'text', text: 'm'.repeat(30_000) })
  })

  it('a long command output keeps its last lines (the error and exit), and drops blocks wholly in the middle', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `line ${i + 1}`).join('\n')
    const out = capToolResultForPersist(msg([{ type: 'text', text: `Command exited with code 3\n\n${lines}\nERR line` }])) as any
    const text = out.content[0].text as string
    expect(text.startsWith('Command exited with code 3\n\nline 1\n')).toBe(true)
    expect(text.endsWith('line 20000\nERR line')).toBe(true)
    // cut at line ends, and the marker counts the lines of the whole text and the kept ones
    const m = /\n(.*)\n\[output truncated: 20,003 lines, [\d,]+ characters; kept the first ([\d,]+) and last ([\d,]+) lines\]\n(.*)\n/.exec(text)!
    const [first, last] = [m[2], m[3]].map((n) => Number(n.replace(/,/g, '')))
    // the text's first two lines are the exit line and a blank one
    expect(m[1]).toBe(`line ${first - 2}`)
    expect(m[4]).toBe(`line ${20_003 - last + 1 - 2}`)
    expect(text.length).toBeLessThanOrEqual(PERSIST_TEXT_MAX_CHARS)
    const three = capToolResultForPersist(msg([{ type: 'text', text: 'a'.repeat(20_000) }, { type: 'text', text: 'b'.repeat(30_000) }, { type: 'text', text: 'c'.repeat(30_000) }])) as any
    expect(three.content.map((b: any) => b.text[0])).toEqual(['a', 'c'])
    expect(three.content[0].text).toContain('[output truncated: 1 line, 80,000 characters;')
  })

  it("an exec result cut by exec's own buffer keeps exec's totals: one marker, the real size, the lines kept", async () => {
    const { HeadTailBuffer } = await import('./output-buffer')
    const b = new HeadTailBuffer(100_000)
    for (let i = 1; i <= 50_000; i++) b.push(`noisy output line ${i}\n`)
    const out = capToolResultForPersist(msg([{ type: 'text', text: `Command exited with code 1\n\n${b.toString()}` }])) as any
    const text = out.content[0].text as string
    expect(text.length).toBeLessThanOrEqual(PERSIST_TEXT_MAX_CHARS)
    expect(text.match(/\[output truncated/g)).toHaveLength(1)
    const m = /\n(.*)\n\[output truncated: 50,000 lines, ([\d,]+) bytes; kept the first (\d+) and last ([\d,]+) lines\]\n(.*)\n/.exec(text)!
    expect(Number(m[2].replace(/,/g, ''))).toBe(b.totalBytes)
    expect(m[1]).toBe(`noisy output line ${m[3]}`)
    expect(m[5]).toBe(`noisy output line ${50_000 - Number(m[4].replace(/,/g, '')) + 1}`)
    expect(text.startsWith('Command exited with code 1\n\nnoisy output line 1\n')).toBe(true)
    expect(text.endsWith('noisy output line 50000\n')).toBe(true)
  })

  it('ignores non-messages', () => {
    expect(capToolResultForPersist('x')).toBe('x')
    expect(capToolResultForPersist({ role: 'user' })).toEqual({ role: 'user' })
  })
})

describe('toolMeta / isMessagingTool / toolCatalog', () => {
  it('summarises tool calls in at most 120 chars', () => {
    expect(toolMeta('read', { path: 'src/a.ts' })).toBe('src/a.ts')
    expect(toolMeta('read', { path: 'a', offset: 10, limit: 5 })).toBe('a (lines 10+5)')
    expect(toolMeta('edit', { path: 'b.ts', oldText: 'x', newText: 'y' })).toBe('b.ts')
    expect(toolMeta('exec', { command: 'npm   test\n  --run' })).toBe('npm test --run')
    expect(toolMeta('web_fetch', { url: 'https://x.dev/a' })).toBe('https://x.dev/a')
    expect(toolMeta('grep', { pattern: 'foo', path: 'src', ignoreCase: true })).toBe('/foo/i in src')
    expect(toolMeta('glob', { pattern: '**/*.ts' })).toBe('**/*.ts')
    expect(toolMeta('ls', {})).toBe('.')
    expect(toolMeta('message', { text: 'hi there' })).toBe('"hi there"')
    expect(toolMeta('custom', { q: 1 })).toBe('{"q":1}')
    expect(toolMeta('custom', undefined)).toBe('')
    const long = toolMeta('exec', { command: 'echo ' + 'a'.repeat(500) })
    expect([...long].length).toBe(120)
    expect(long.endsWith('…')).toBe(true)
  })

  it('isMessagingTool', () => {
    expect(isMessagingTool('message')).toBe(true)
    expect(isMessagingTool('exec')).toBe(false)
  })

  it('catalog lists every tool with JSON-schema parameters; only exec needs approval', () => {
    const cat = toolCatalog()
    expect(cat.map((t) => t.name)).toEqual(['read', 'write', 'edit', 'ls', 'glob', 'grep', 'exec', 'web_fetch', 'message'])
    for (const t of cat) {
      expect(t.label).toBeTruthy()
      expect(t.description.length).toBeGreaterThan(20)
      expect((t.parameters as any).type).toBe('object')
      expect(JSON.parse(JSON.stringify(t.parameters))).toEqual(t.parameters)
    }
    expect(cat.filter((t) => t.needsApproval).map((t) => t.name)).toEqual(['exec'])
    expect((cat.find((t) => t.name === 'edit')!.parameters as any).required).toEqual(['path', 'oldText', 'newText'])
  })
})
