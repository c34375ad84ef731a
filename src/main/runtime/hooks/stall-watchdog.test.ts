// A hook handler stuck in synchronous work is named while it runs — by the watchdog thread, since no timer of
// the blocked main thread fires — not only once it returns (it may never). A real process: the line must reach
// stderr while the main thread is still busy.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { expect, it } from 'vitest'

const ROOT = path.resolve(__dirname, '../../../..')

it('a handler looping past its limit is named on stderr while it still loops; one back in time is not named', () => {
  const registry = path.join(__dirname, 'registry.ts')
  const watchdog = path.join(__dirname, 'stall-watchdog.ts')
  const code = `
    const { HookRegistry } = await import(${JSON.stringify(registry)})
    const { setStallPollMs } = await import(${JSON.stringify(watchdog)})
    setStallPollMs(20)
    const r = new HookRegistry({ logger: { warn: (m) => process.stderr.write('after: ' + m + '\\n'), error: () => {}, info: () => {} }, timeoutMs: 300 })
    const spin = (ms) => {
      const until = Date.now() + ms
      while (Date.now() < until) {} // no timer of this thread fires meanwhile
    }
    r.register('before_tool_call', () => (spin(100), undefined), { pluginId: 'quick', priority: 10 })
    r.register('before_tool_call', () => {
      spin(2500)
      process.stderr.write('returned\\n')
      return undefined
    }, { pluginId: 'spinner' })
    await r.runBeforeToolCall({ toolName: 'exec', params: {} }, { toolName: 'exec' })
  `
  const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 })
  const lines = out.stderr.split('\n').filter(Boolean)
  expect(lines, out.stderr).toHaveLength(3)
  // written while the handler still ran: before it returned
  expect(lines[0]).toMatch(
    /^\[hooks\] before_tool_call handler of plugin "spinner" has been running synchronously for over \d+ ms \(limit 300 ms\) and blocks every session and the gateway until it returns/,
  )
  expect(lines[1]).toBe('returned')
  expect(lines[2]).toMatch(/^after: \[hooks\] before_tool_call handler of plugin "spinner" ran synchronously for \d+ ms \(limit 300 ms\)/)
})
