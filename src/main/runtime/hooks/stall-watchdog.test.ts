// Code after a handler's first await cannot be stopped; when it holds the thread past the handler's limit, the
// watchdog thread names the pending call on stderr while the main thread is still stuck (no timer of its own could
// fire). A real process: the line must reach stderr before the handler's loop ends.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import { expect, it } from 'vitest'

const ROOT = path.resolve(__dirname, '../../../..')

it('a handler looping after its first await is named on stderr while it loops; a quick one is not', () => {
  const registry = path.join(__dirname, 'registry.ts')
  const watchdog = path.join(__dirname, 'stall-watchdog.ts')
  const code = `
    const { HookRegistry } = await import(${JSON.stringify(registry)})
    const { setStallPollMs } = await import(${JSON.stringify(watchdog)})
    setStallPollMs(20)
    const r = new HookRegistry({ logger: { warn: () => {}, error: (m) => process.stderr.write('after: ' + m + '\\n'), info: () => {} }, timeoutMs: 300 })
    const spin = (ms) => {
      const until = Date.now() + ms
      while (Date.now() < until) {} // no timer of this thread fires meanwhile
    }
    r.register('message_sending', async () => { await null; spin(100) }, { pluginId: 'quick', priority: 10 })
    r.register('message_sending', async () => {
      await new Promise((res) => setTimeout(res, 150)) // the worker is up and has seen the beat
      spin(2000)
      process.stderr.write('returned\\n')
      return { content: 'late' }
    }, { pluginId: 'spinner' })
    const out = await r.runMessageSending({ to: 'u', content: 'x' }, {})
    process.stderr.write('content: ' + out.content + '\\n')
  `
  const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 })
  const lines = out.stderr.split('\n').filter(Boolean)
  expect(lines, out.stderr).toHaveLength(4)
  // written while the handler still ran: before it returned
  expect(lines[0]).toMatch(
    /^\[hooks\] the app has been blocked for over \d+ ms \(limit 300 ms\) while this had not finished: message_sending handler of plugin "spinner" — code after a handler's await/,
  )
  expect(lines[1]).toBe('returned')
  expect(lines[2]).toBe('after: [hooks] message_sending handler of plugin "spinner" timed out after 300 ms; skipped (the message is sent)')
  expect(lines[3]).toBe('content: x')
})

it('the watchdog thread looks only while a call is pending: once none is, it sleeps (no timer waking it)', async () => {
  const { setStallPollMs, stallWatchdogLooks, watchPending } = await import('./stall-watchdog')
  setStallPollMs(10)
  const wait = (ms: number) => new Promise((res) => setTimeout(res, ms))
  const lookedBy = async (n: number) => {
    for (let i = 0; i < 200 && (stallWatchdogLooks() ?? 0) < n; i++) await wait(10)
    return stallWatchdogLooks() ?? 0
  }
  let unwatch = watchPending('a pending call', 5_000)
  expect(await lookedBy(3)).toBeGreaterThanOrEqual(3)
  unwatch()
  await wait(100) // its next look finds nothing pending and it goes to sleep
  const asleep = stallWatchdogLooks()
  await wait(300)
  expect(stallWatchdogLooks()).toBe(asleep)
  // a new pending call wakes it
  unwatch = watchPending('another call', 5_000)
  expect(await lookedBy(asleep! + 3)).toBeGreaterThanOrEqual(asleep! + 3)
  unwatch()
})
