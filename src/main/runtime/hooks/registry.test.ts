import { describe, expect, it, vi } from 'vitest'
import { HookRegistry } from './registry'
import type { HookLogger } from './types'

function memLogger() {
  const lines: Array<{ level: string; msg: string }> = []
  const logger: HookLogger = {
    info: (msg) => lines.push({ level: 'info', msg }),
    warn: (msg) => lines.push({ level: 'warn', msg }),
    error: (msg) => lines.push({ level: 'error', msg }),
  }
  return { logger, lines }
}

const toolEvent = { toolName: 'exec', params: { command: 'ls' }, toolCallId: 'c1' }
const toolCtx = { toolName: 'exec', toolCallId: 'c1', sessionKey: 'agent:main:main' }

describe('HookRegistry registration', () => {
  it('rejects unknown hook names and non-function handlers', () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    expect(() => r.register('nope' as never, (() => {}) as never)).toThrow(/unknown hook "nope"/)
    expect(() => r.register('agent_end', 42 as never)).toThrow(/must be a function/)
  })

  it('unregister function and unregisterPlugin remove handlers', async () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    const off = r.register('agent_end', () => {})
    r.register('agent_end', () => {}, { pluginId: 'p' })
    r.register('before_tool_call', () => {}, { pluginId: 'p' })
    expect(r.count()).toBe(3)
    off()
    expect(r.count('agent_end')).toBe(1)
    expect(r.unregisterPlugin('p')).toBe(2)
    expect(r.has('agent_end')).toBe(false)
  })
})

describe('before_agent_start', () => {
  it('runs in priority order (higher first, ties in registration order)', async () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    const order: string[] = []
    r.register('before_agent_start', () => void order.push('p0-a'))
    r.register('before_agent_start', () => void order.push('p10'), { priority: 10 })
    r.register('before_agent_start', () => void order.push('p0-b'))
    r.register('before_agent_start', () => void order.push('p-5'), { priority: -5 })
    r.register('before_agent_start', () => void order.push('p5'), { priority: 5 })
    await r.runBeforeAgentStart({ prompt: 'hi' }, {})
    expect(order).toEqual(['p10', 'p5', 'p0-a', 'p0-b', 'p-5'])
  })

  it('first defined systemPrompt by priority wins; prependContext concatenated in priority order', async () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    r.register('before_agent_start', () => ({ systemPrompt: 'LOW', prependContext: 'ctx-low' }), { priority: 1 })
    r.register('before_agent_start', () => ({ prependContext: 'ctx-top' }), { priority: 100 })
    r.register('before_agent_start', async () => ({ systemPrompt: 'HIGH', prependContext: 'ctx-mid' }), { priority: 50 })
    r.register('before_agent_start', () => undefined, { priority: 75 })
    const res = await r.runBeforeAgentStart({ prompt: 'hi', messages: [] }, { runId: 'r1' })
    expect(res).toEqual({ systemPrompt: 'HIGH', prependContext: 'ctx-top\n\nctx-mid\n\nctx-low' })
  })

  it('passes event and ctx; a throwing handler is logged and skipped', async () => {
    const { logger, lines } = memLogger()
    const r = new HookRegistry({ logger })
    const seen = vi.fn()
    r.register('before_agent_start', () => {
      throw new Error('kaboom')
    }, { priority: 9, pluginId: 'bad' })
    r.register('before_agent_start', (ev, ctx) => {
      seen(ev.prompt, ctx.runId)
      return { systemPrompt: 'S' }
    })
    expect(await r.runBeforeAgentStart({ prompt: 'P' }, { runId: 'r9' })).toEqual({ systemPrompt: 'S' })
    expect(seen).toHaveBeenCalledWith('P', 'r9')
    expect(lines.some((l) => l.level === 'error' && /plugin "bad".*kaboom/.test(l.msg))).toBe(true)
  })

  it('returns an empty object with no handlers', async () => {
    expect(await new HookRegistry().runBeforeAgentStart({ prompt: 'x' }, {})).toEqual({})
  })
})

describe('before_tool_call', () => {
  it('block is sticky and terminal: lower priorities do not run', async () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    const lower = vi.fn(() => ({ block: false }))
    r.register('before_tool_call', () => ({ block: true, blockReason: 'no exec today' }), { priority: 10 })
    r.register('before_tool_call', lower, { priority: 1 })
    const res = await r.runBeforeToolCall(toolEvent, toolCtx)
    expect(res).toEqual({ params: { command: 'ls' }, block: true, blockReason: 'no exec today' })
    expect(lower).not.toHaveBeenCalled()
  })

  it('block:false cannot clear a block, and a missing reason gets the default', async () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    r.register('before_tool_call', () => ({ block: false }), { priority: 20 })
    r.register('before_tool_call', () => ({ block: true }), { priority: 10 })
    r.register('before_tool_call', () => ({ block: false }), { priority: 5 })
    const res = await r.runBeforeToolCall(toolEvent, toolCtx)
    expect(res.block).toBe(true)
    expect(res.blockReason).toBe('Tool call blocked by plugin hook')
  })

  it('params: last defined wins and each handler sees the current params', async () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    const seen: unknown[] = []
    r.register('before_tool_call', (ev) => {
      seen.push(ev.params)
      return { params: { command: 'ls -la' } }
    }, { priority: 3 })
    r.register('before_tool_call', (ev) => {
      seen.push(ev.params)
      return {}
    }, { priority: 2 })
    r.register('before_tool_call', async (ev) => {
      seen.push(ev.params)
      return { params: { command: 'ls -la /tmp' } }
    }, { priority: 1 })
    const res = await r.runBeforeToolCall(toolEvent, toolCtx)
    expect(res).toEqual({ params: { command: 'ls -la /tmp' }, block: false })
    expect(seen).toEqual([{ command: 'ls' }, { command: 'ls -la' }, { command: 'ls -la' }])
  })

  it('a throwing handler blocks (fail closed) with a reason naming the error; lower priorities skipped', async () => {
    const { logger, lines } = memLogger()
    const r = new HookRegistry({ logger })
    const lower = vi.fn()
    r.register('before_tool_call', async () => {
      throw new Error('policy service down')
    }, { priority: 5, pluginId: 'guard' })
    r.register('before_tool_call', lower)
    const res = await r.runBeforeToolCall(toolEvent, toolCtx)
    expect(res.block).toBe(true)
    expect(res.blockReason).toMatch(/guard/)
    expect(res.blockReason).toMatch(/policy service down/)
    expect(lower).not.toHaveBeenCalled()
    expect(lines.some((l) => l.level === 'error')).toBe(true)
  })

  it('does not block with no handlers', async () => {
    expect(await new HookRegistry().runBeforeToolCall(toolEvent, toolCtx)).toEqual({ params: toolEvent.params, block: false })
  })
})

describe('tool_result_persist (sync only)', () => {
  const message = { role: 'toolResult', toolCallId: 'c1', content: [{ type: 'text', text: 'raw' }] }

  it('chains returned messages in priority order', () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    r.register('tool_result_persist', (ev) => ({ message: { ...ev.message, content: [{ type: 'text', text: 'redacted' }] } }), {
      priority: 2,
    })
    r.register('tool_result_persist', (ev) => ({
      message: { ...ev.message, tag: `seen:${(ev.message.content as Array<{ text: string }>)[0].text}` },
    }))
    const out = r.runToolResultPersist({ toolName: 'exec', toolCallId: 'c1', message }, toolCtx)
    expect(out).toEqual({ ...message, content: [{ type: 'text', text: 'redacted' }], tag: 'seen:redacted' })
  })

  it('ignores a Promise result with a warning and never awaits it', () => {
    const { logger, lines } = memLogger()
    const r = new HookRegistry({ logger })
    r.register('tool_result_persist', (async () => ({ message: { role: 'toolResult', content: 'ASYNC' } })) as never, {
      pluginId: 'slow',
    })
    r.register('tool_result_persist', (() => Promise.reject(new Error('late'))) as never, { pluginId: 'rejecting' })
    const out = r.runToolResultPersist({ message }, toolCtx)
    expect(out).toBe(message)
    const warns = lines.filter((l) => l.level === 'warn')
    expect(warns).toHaveLength(2)
    expect(warns[0].msg).toMatch(/slow.*Promise.*ignored/)
  })

  it('a throwing handler is logged and the message passes through; invalid messages are ignored', () => {
    const { logger, lines } = memLogger()
    const r = new HookRegistry({ logger })
    r.register('tool_result_persist', () => {
      throw new Error('oops')
    }, { priority: 2 })
    r.register('tool_result_persist', () => ({ message: 'not a message' as never }))
    expect(r.runToolResultPersist({ message }, toolCtx)).toEqual(message)
    expect(lines.map((l) => l.level)).toEqual(['error', 'warn'])
  })
})

describe('message_sending', () => {
  it('content last defined wins; cancel is sticky and terminal', async () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    const after = vi.fn()
    r.register('message_sending', () => ({ content: 'A' }), { priority: 3 })
    r.register('message_sending', (ev) => ({ content: ev.content + 'B', cancel: true }), { priority: 2 })
    r.register('message_sending', after, { priority: 1 })
    expect(await r.runMessageSending({ to: 'user', content: 'x' }, {})).toEqual({ content: 'AB', cancel: true })
    expect(after).not.toHaveBeenCalled()
  })

  it('passes through without handlers or cancel', async () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    r.register('message_sending', () => ({ cancel: false }))
    expect(await r.runMessageSending({ to: 'u', content: 'hello' }, {})).toEqual({ content: 'hello', cancel: false })
  })
})

describe('observe-only hooks', () => {
  it('run in parallel and an error in one handler is isolated and logged', async () => {
    const { logger, lines } = memLogger()
    const r = new HookRegistry({ logger })
    const started: string[] = []
    let releaseA!: () => void
    const aGate = new Promise<void>((res) => (releaseA = res))
    const finished: string[] = []
    r.register('agent_end', async () => {
      started.push('a')
      await aGate
      finished.push('a')
    }, { priority: 10 })
    r.register('agent_end', async () => {
      started.push('b')
      throw new Error('observer broke')
    }, { pluginId: 'flaky' })
    r.register('agent_end', () => {
      started.push('c')
      finished.push('c')
    })
    const p = r.runObserve('agent_end', { messages: [], success: true, durationMs: 5 }, { runId: 'r' })
    // All handlers started before the first one finished: they run in parallel.
    await Promise.resolve()
    expect(started.sort()).toEqual(['a', 'b', 'c'])
    expect(finished).toEqual(['c'])
    releaseA()
    await expect(p).resolves.toBeUndefined()
    expect(finished).toEqual(['c', 'a'])
    expect(lines.some((l) => l.level === 'error' && /agent_end.*flaky.*observer broke/.test(l.msg))).toBe(true)
  })

  it('synchronous throws are isolated too', async () => {
    const { logger, lines } = memLogger()
    const r = new HookRegistry({ logger })
    const ok = vi.fn()
    r.register('session_end', () => {
      throw new Error('sync fail')
    })
    r.register('session_end', ok)
    await r.runObserve('session_end', { sessionId: 's', messageCount: 2, reason: 'reset' }, { sessionId: 's' })
    expect(ok).toHaveBeenCalledWith({ sessionId: 's', messageCount: 2, reason: 'reset' }, { sessionId: 's' })
    expect(lines).toHaveLength(1)
  })
})

describe('hook time limits', () => {
  const never = () => new Promise<never>(() => {})
  const msgCtx = { sessionKey: 'agent:main:main' }

  it('before_tool_call: a handler that never answers blocks the call (fail closed) with a clear reason', async () => {
    const { logger, lines } = memLogger()
    const r = new HookRegistry({ logger, timeoutMs: 50 })
    const lower = vi.fn()
    r.register('before_tool_call', never, { pluginId: 'stuck', priority: 10 })
    r.register('before_tool_call', lower)
    const t0 = Date.now()
    const out = await r.runBeforeToolCall(toolEvent, toolCtx)
    expect(Date.now() - t0).toBeLessThan(1000)
    expect(out).toEqual({ params: toolEvent.params, block: true, blockReason: 'Tool call blocked: before_tool_call hook of plugin "stuck" did not answer within 50 ms' })
    expect(lower).not.toHaveBeenCalled()
    expect(lines).toEqual([{ level: 'error', msg: expect.stringContaining('did not answer within 50 ms') }])
  })

  it('fail-open hooks that time out are skipped and logged; the other handlers still count', async () => {
    const { logger, lines } = memLogger()
    const r = new HookRegistry({ logger, timeoutMs: 50 })
    r.register('before_agent_start', never, { pluginId: 'slow', priority: 10 })
    r.register('before_agent_start', () => ({ prependContext: 'ctx' }))
    r.register('message_sending', never, { pluginId: 'slow', priority: 10 })
    r.register('message_sending', (ev) => ({ content: `${ev.content}!` }))
    const seen = vi.fn()
    r.register('agent_end', never, { pluginId: 'slow' })
    r.register('agent_end', seen)
    expect(await r.runBeforeAgentStart({ prompt: 'p' }, {})).toEqual({ prependContext: 'ctx' })
    expect(await r.runMessageSending({ to: 'x', content: 'hi' }, msgCtx)).toEqual({ content: 'hi!', cancel: false })
    await r.runObserve('agent_end', { messages: [], success: true }, {})
    expect(seen).toHaveBeenCalledTimes(1)
    expect(lines.map((l) => l.msg)).toEqual([
      '[hooks] before_agent_start handler of plugin "slow" timed out after 50 ms; skipped',
      '[hooks] message_sending handler of plugin "slow" timed out after 50 ms; skipped (the message is sent)',
      '[hooks] agent_end handler of plugin "slow" timed out after 50 ms; skipped',
    ])
  })

  it('a per-handler timeoutMs overrides the registry default; a getter default is read at each call; 0 = no limit', async () => {
    const { logger } = memLogger()
    let limit = 5_000
    const r = new HookRegistry({ logger, timeoutMs: () => limit })
    const slowBlock = () => new Promise<{ block: true }>((res) => setTimeout(() => res({ block: true }), 120))
    r.register('before_tool_call', slowBlock, { pluginId: 'slow' })
    expect((await r.runBeforeToolCall(toolEvent, toolCtx)).blockReason).toBe('Tool call blocked by plugin hook') // answered in time
    limit = 30
    expect((await r.runBeforeToolCall(toolEvent, toolCtx)).blockReason).toMatch(/did not answer within 30 ms/)
    limit = 0
    expect((await r.runBeforeToolCall(toolEvent, toolCtx)).blockReason).toBe('Tool call blocked by plugin hook')
    const r2 = new HookRegistry({ logger, timeoutMs: 5_000 })
    r2.register('before_tool_call', slowBlock, { pluginId: 'tight', timeoutMs: 20 })
    expect((await r2.runBeforeToolCall(toolEvent, toolCtx)).blockReason).toMatch(/plugin "tight" did not answer within 20 ms/)
  })

  it('the default limit is 10 s', async () => {
    vi.useFakeTimers()
    try {
      const r = new HookRegistry({ logger: memLogger().logger })
      r.register('before_tool_call', never, { pluginId: 'stuck' })
      let out: unknown
      void r.runBeforeToolCall(toolEvent, toolCtx).then((o) => (out = o))
      await vi.advanceTimersByTimeAsync(9_999)
      expect(out).toBeUndefined()
      await vi.advanceTimersByTimeAsync(1)
      expect(out).toMatchObject({ block: true, blockReason: expect.stringMatching(/within 10000 ms/) })
    } finally {
      vi.useRealTimers()
    }
  })

  it('a handler still running synchronously at its limit is stopped there: it counts as timed out, the next ones run', async () => {
    const { logger, lines } = memLogger()
    const r = new HookRegistry({ logger, timeoutMs: 50 })
    const spin = (ms: number) => {
      const until = Date.now() + ms
      while (Date.now() < until) {
        /* no timer fires meanwhile */
      }
    }
    let edited = 0
    r.register('before_tool_call', () => (spin(3000), { block: true, blockReason: 'spun' }), { pluginId: 'spinner' })
    r.register('tool_result_persist', (ev) => (spin(3000), { message: { ...ev.message, edited: true } }), { pluginId: 'spinner' })
    // stopped part-way: what it did before the loop stays done
    r.register('message_sending', () => {
      edited++
      spin(3000)
      return { content: 'spun' }
    }, { pluginId: 'forever', priority: 10 })
    r.register('message_sending', () => ({ content: 'quick' }), { pluginId: 'quick' })
    const started = Date.now()
    expect(await r.runBeforeToolCall(toolEvent, toolCtx)).toMatchObject({
      block: true,
      blockReason: expect.stringMatching(/^Tool call blocked: before_tool_call hook of plugin "spinner" did not answer within 50 ms/),
    })
    expect(r.runToolResultPersist({ toolName: 'exec', message: { role: 'toolResult' } }, toolCtx)).toEqual({ role: 'toolResult' })
    expect((await r.runMessageSending({ to: 'u', content: 'x' }, {})).content).toBe('quick')
    expect(Date.now() - started).toBeLessThan(2000)
    expect(edited).toBe(1)
    const text = lines.map((l) => `${l.level} ${l.msg}`)
    expect(text).toContainEqual(
      expect.stringMatching(/^warn \[hooks\] before_tool_call handler of plugin "spinner" ran synchronously for \d+ ms \(limit 50 ms\) and blocked the app meanwhile; one still running at its limit is stopped/),
    )
    expect(text).toContainEqual(expect.stringMatching(/^error \[hooks\] tool_result_persist handler of plugin "spinner" failed: .*did not answer within 50 ms/))
    expect(text).toContainEqual(expect.stringMatching(/^error \[hooks\] message_sending handler of plugin "forever" timed out after 50 ms/))
  })
})

describe('a stopped handler leaves nothing half edited (each handler works on a copy)', () => {
  const spin = () => {
    for (;;) {
      /* stopped by the watchdog */
    }
  }

  it('tool_result_persist: in-place edits count when the handler returns, not when it is stopped or fails half-way', () => {
    const r = new HookRegistry({ logger: memLogger().logger, timeoutMs: 50 })
    type Msg = { role: string; content: Array<{ type: string; text: string }> }
    r.register('tool_result_persist', (ev) => {
      const m = ev.message as Msg
      m.content[0].text = 'REDACTED'
      m.content.push({ type: 'text', text: 'half' })
      spin()
    }, { pluginId: 'stopped', priority: 3 })
    r.register('tool_result_persist', (ev) => {
      ;(ev.message as Msg).content[0].text = 'thrown away'
      throw new Error('oops')
    }, { pluginId: 'throws', priority: 2 })
    r.register('tool_result_persist', (ev) => void ((ev.message as Msg).content[0].text += ' (checked)'), { pluginId: 'edits', priority: 1 })
    const original: Msg = { role: 'toolResult', content: [{ type: 'text', text: 'secret output' }] }
    const out = r.runToolResultPersist({ toolName: 'exec', message: original }, toolCtx)
    expect(out).toEqual({ role: 'toolResult', content: [{ type: 'text', text: 'secret output (checked)' }] })
    expect(original).toEqual({ role: 'toolResult', content: [{ type: 'text', text: 'secret output' }] })
  })

  it("before_tool_call: a stopped handler's half edit of the arguments, or a late one after its timeout, never reaches them", async () => {
    const r = new HookRegistry({ logger: memLogger().logger, timeoutMs: 50 })
    r.register('before_tool_call', (ev) => {
      ;(ev.params as { command: string }).command = 'rm -rf ~'
      spin()
    }, { pluginId: 'stopped' })
    const args = { command: 'ls', opts: { cwd: '.' } }
    const out = await r.runBeforeToolCall({ toolName: 'exec', params: args }, toolCtx)
    expect(out).toMatchObject({ block: true, params: { command: 'ls', opts: { cwd: '.' } } })
    expect(args).toEqual({ command: 'ls', opts: { cwd: '.' } })

    const late = new HookRegistry({ logger: memLogger().logger, timeoutMs: 30 })
    late.register('before_tool_call', async (ev) => {
      await new Promise((res) => setTimeout(res, 80))
      ;(ev.params as { opts: { cwd: string } }).opts.cwd = '/'
    }, { pluginId: 'late' })
    expect((await late.runBeforeToolCall({ toolName: 'exec', params: args }, toolCtx)).block).toBe(true)
    await new Promise((res) => setTimeout(res, 120))
    expect(args).toEqual({ command: 'ls', opts: { cwd: '.' } })

    // one that answers in time: its in-place edit is the new params, passed on to the next handler
    const ok = new HookRegistry({ logger: memLogger().logger })
    ok.register('before_tool_call', (ev) => void ((ev.params as { opts: { cwd: string } }).opts.cwd = 'sub'), { priority: 2 })
    const seen: unknown[] = []
    ok.register('before_tool_call', (ev) => void seen.push(structuredClone(ev.params)), { priority: 1 })
    expect(await ok.runBeforeToolCall({ toolName: 'exec', params: args }, toolCtx)).toEqual({ params: { command: 'ls', opts: { cwd: 'sub' } }, block: false })
    expect(seen).toEqual([{ command: 'ls', opts: { cwd: 'sub' } }])
  })

  it("before_agent_start and observe hooks see copies: the run's history stays as it was", async () => {
    const r = new HookRegistry({ logger: memLogger().logger, timeoutMs: 50 })
    const history = [{ role: 'user', content: 'hi' }]
    r.register('before_agent_start', (ev) => {
      ev.messages!.splice(0, 1, { role: 'user', content: 'injected' })
      spin()
    }, { pluginId: 'stopped' })
    r.register('agent_end', (ev) => {
      ;(ev.messages[0] as unknown as { content: string }).content = 'changed'
      spin()
    }, { pluginId: 'stopped' })
    expect(await r.runBeforeAgentStart({ prompt: 'p', messages: history }, {})).toEqual({})
    await r.runObserve('agent_end', { messages: history, success: true }, {})
    expect(history).toEqual([{ role: 'user', content: 'hi' }])
  })

  it('copies a long history once per call, not once per handler, where the copy is never taken back', async () => {
    const r = new HookRegistry({ logger: memLogger().logger })
    const seen: Record<string, unknown[]> = { before_agent_start: [], agent_end: [] }
    for (let i = 0; i < 3; i++) {
      r.register('before_agent_start', (ev) => void seen.before_agent_start.push(ev.messages))
      r.register('agent_end', (ev) => void seen.agent_end.push(ev.messages))
    }
    const history = Array.from({ length: 1000 }, (_, i) => ({ role: 'user', content: [{ type: 'text', text: `m${i}` }] }))
    await r.runBeforeAgentStart({ prompt: 'p', messages: history }, {})
    await r.runObserve('agent_end', { messages: history, success: true }, {})
    for (const shown of Object.values(seen)) {
      expect(shown).toHaveLength(3)
      expect(shown[0]).not.toBe(history)
      expect(shown[0]).toEqual(history)
      expect(new Set(shown).size).toBe(1)
    }
  })
})

describe('code after a handler\'s first await', () => {
  const spin = (ms: number) => {
    const until = Date.now() + ms
    while (Date.now() < until) {
      /* holds the thread: the limit's timer cannot fire */
    }
  }

  it('an answer that comes past the limit counts as timed out, even when the timer could not fire before it', async () => {
    const { logger, lines } = memLogger()
    const r = new HookRegistry({ logger, timeoutMs: 50 })
    r.register('before_tool_call', async () => {
      await null
      spin(200)
      return { block: false, params: { command: 'late rewrite' } }
    }, { pluginId: 'late' })
    expect(await r.runBeforeToolCall(toolEvent, toolCtx)).toEqual({
      params: toolEvent.params,
      block: true,
      blockReason: 'Tool call blocked: before_tool_call hook of plugin "late" did not answer within 50 ms',
    })
    r.register('message_sending', async () => {
      await new Promise((res) => setTimeout(res, 1))
      spin(200)
      return { content: 'late' }
    }, { pluginId: 'late' })
    expect(await r.runMessageSending({ to: 'u', content: 'x' }, {})).toEqual({ content: 'x', cancel: false })
    expect(lines.map((l) => l.msg)).toContain('[hooks] message_sending handler of plugin "late" timed out after 50 ms; skipped (the message is sent)')
  })
})
