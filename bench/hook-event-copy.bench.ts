// What copying a hook's event costs (event-copy.ts): a modifying handler gets its own copy (the tool's arguments, the
// result to persist), the handlers of an observe hook or before_agent_start share one per call. Prints ms per copy
// for the events that can be big: a long run's history (before_agent_start, agent_end) and a large tool result
// (tool_result_persist, after_tool_call; its text is a string, shared). `npx tsx bench/hook-event-copy.bench.ts`
import { copyPlain } from '../src/main/runtime/hooks/event-copy'

function history(turns: number): unknown[] {
  const out: unknown[] = []
  for (let i = 0; i < turns; i++) {
    out.push({ role: 'user', content: [{ type: 'text', text: `question ${i} `.repeat(20) }], timestamp: i })
    out.push({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm '.repeat(50) },
        { type: 'text', text: 'answer '.repeat(80) },
        { type: 'toolCall', id: `c${i}`, name: 'read', arguments: { path: `/tmp/f${i}.ts`, offset: 1, limit: 200 } },
      ],
      usage: { input: 1000, output: 200, cacheRead: 0, cacheWrite: 0, totalTokens: 1200, cost: { input: 0, output: 0, total: 0 } },
      stopReason: 'toolUse',
      timestamp: i,
    })
    out.push({ role: 'toolResult', toolCallId: `c${i}`, toolName: 'read', content: [{ type: 'text', text: 'x'.repeat(2000) }], isError: false, timestamp: i })
  }
  return out
}

// a tool result whose details hold parsed structured data (a search tool's hits, a JSON file's contents)
function bigResult(bytes: number, structured: boolean): unknown {
  const text = 'y'.repeat(bytes)
  const details = structured ? { hits: Array.from({ length: Math.round(bytes / 100) }, (_, i) => ({ file: `f${i}`, line: i, text: 'z'.repeat(60) })) } : undefined
  return { role: 'toolResult', toolCallId: 'c', toolName: 'grep', content: [{ type: 'text', text }], details, isError: false, timestamp: 0 }
}

function time(label: string, make: () => unknown, copies = 20): void {
  const value = make()
  copyPlain(value) // warm
  const t0 = performance.now()
  for (let i = 0; i < copies; i++) copyPlain(value)
  const ms = (performance.now() - t0) / copies
  console.log(`${label.padEnd(58)} ${ms.toFixed(3).padStart(9)} ms per copy`)
}

time('before_agent_start, 300 turns (900 messages)', () => ({ prompt: 'p', messages: history(300) }))
time('before_agent_start, 3000 turns (9000 messages)', () => ({ prompt: 'p', messages: history(3000) }), 5)
time('tool_result_persist, 1 MB text result', () => ({ toolName: 'grep', toolCallId: 'c', message: bigResult(1 << 20, false) }))
time('tool_result_persist, 1 MB result + 10k-hit details', () => ({ toolName: 'grep', toolCallId: 'c', message: bigResult(1 << 20, true) }))
