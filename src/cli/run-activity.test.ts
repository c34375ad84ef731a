// `loopdesk agent` shows the run's tools on stderr and handles exec approvals: asked at the terminal,
// or (no terminal) told how to answer; answered elsewhere or expired; --local with nobody to ask.
// In-process CLI against the real runtime + gateway + scripted model server.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startModelServer, type ModelServer } from '../../test/fixtures/model-server'
import { tempDir } from '../../test/fixtures/temp-dir'
import { startTestRuntimeGateway, testConfig, type TestRuntime, type TestRuntimeGateway } from '../../test/fixtures/test-runtime'
import { until } from '../../test/fixtures/until'
import type { GatewayHandle } from '../main/gateway/server'
import type { ExecApprovalRequest } from '../shared/events'
import { approvalText, parseApprovalAnswer } from './commands/run-activity'
import type { CliIO } from './io'
import { runCli } from './main'

const TOKEN = 'activity-token-0123456789abcdef'
let server: ModelServer
let rt: TestRuntime
let gw: GatewayHandle
let stack: TestRuntimeGateway | undefined

beforeAll(async () => {
  server = await startModelServer({ fallback: { text: 'ok' } })
  stack = await startTestRuntimeGateway(server, TOKEN)
  rt = stack.rt
  gw = stack.gw
})
afterAll(async () => {
  await stack?.close()
  await server?.close()
})

interface Asked {
  question: string
  signal: AbortSignal
}

function cli(answers?: Array<string | ((a: Asked) => Promise<string | undefined>)>) {
  const out: string[] = []
  const err: string[] = []
  const asked: Asked[] = []
  const io: CliIO = {
    env: { LOOPDESK_GATEWAY_TOKEN: TOKEN },
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    onSignal: () => () => {},
    ask: answers
      ? async (question, signal) => {
          const a = { question, signal }
          asked.push(a)
          const next = answers.shift()
          if (next === undefined) throw new Error('asked more often than the test expected')
          return typeof next === 'string' ? next : next(a)
        }
      : undefined,
  }
  const dir = tempDir('loopdesk-cli-act-')
  const agent = (message: string, key: string, extra: string[] = []) =>
    runCli(['agent', '-m', message, '--session-key', key, '--url', gw.url, '--state-dir', dir, ...extra], io)
  return { io, agent, asked, out: () => out.join(''), err: () => err.join('') }
}

const execTurn = (command: string) => ({ toolCalls: [{ name: 'exec', args: { command } }] })
/** the text of the tool result the model got back in the request after the tool call */
const lastToolResult = () => JSON.stringify(server.requests[server.requests.length - 1]?.body?.messages?.at(-1) ?? {})

describe('parseApprovalAnswer', () => {
  it('y/yes once, a/always, n/no/empty deny, anything else asks again', () => {
    expect(['y', 'YES ', ' yes'].map(parseApprovalAnswer)).toEqual(['allow-once', 'allow-once', 'allow-once'])
    expect(['a', 'Always'].map(parseApprovalAnswer)).toEqual(['allow-always', 'allow-always'])
    expect(['n', 'no', '', '  '].map(parseApprovalAnswer)).toEqual(['deny', 'deny', 'deny', 'deny'])
    expect(['maybe', 'yess', 'ok'].map(parseApprovalAnswer)).toEqual([undefined, undefined, undefined])
  })
})

describe('loopdesk agent: tools and approvals', () => {
  it('a terminal is asked; "y" runs the command once; the tool is listed on stderr, the reply alone on stdout', async () => {
    server.push(execTurn('echo approved-at-terminal'), { text: 'after the tool', chunks: 2 })
    const c = cli(['y'])
    const code = await c.agent('run it', 'agent:main:act1')
    expect(code).toBe(0)
    expect(c.out()).toBe('after the tool\n')
    expect(c.err()).toContain('→ exec: echo approved-at-terminal')
    expect(c.err()).toMatch(/\? the agent wants to run: echo approved-at-terminal\n {2}in .+ \(expires in \d+ s\)/)
    expect(c.asked).toHaveLength(1)
    expect(c.asked[0].question).toMatch(/\[y\] once, \[a\] always, \[N\] no/)
    expect(lastToolResult()).toContain('approved-at-terminal')
  })

  it('the question shows the whole command, its line breaks as line breaks (the shell runs each line)', async () => {
    const command = `echo ${'x'.repeat(300)} >/dev/null\necho second-line-runs-too`
    server.push(execTurn(command), { text: 'denied then', chunks: 1 })
    const c = cli(['n'])
    expect(await c.agent('run it', 'agent:main:act-long')).toBe(0)
    expect(c.err()).toContain(`? the agent wants to run:\n    echo ${'x'.repeat(300)} >/dev/null\n    echo second-line-runs-too\n  in `)
    expect(approvalText('ls -la')).toBe(' ls -la')
    expect(approvalText('echo \u202eok\u2066')).toBe(' echo ⟨U+202E⟩ok⟨U+2066⟩')
  })

  it('an answer it does not understand is asked again; "n" denies and the tool is reported as denied, not failed', async () => {
    server.push(execTurn('echo never-runs'), { text: 'denied then', chunks: 1 })
    const c = cli(['maybe', 'n'])
    const code = await c.agent('run it', 'agent:main:act2')
    expect(code).toBe(0)
    expect(c.asked).toHaveLength(2)
    expect(c.err()).toContain('✗ exec denied: not run')
    expect(lastToolResult()).toContain('exec denied by user')
  })

  it('no terminal: one line says how to answer, and the printed params answer it', async () => {
    server.push(execTurn('echo approved-by-params'), { text: 'done', chunks: 1 })
    const c = cli()
    const run = c.agent('run it', 'agent:main:act3')
    await until(() => /--params '(\{.*\})'/.test(c.err()), 10_000)
    expect(c.err()).toMatch(/approve or deny it in a Loopdesk window \(the app, or `loopdesk dashboard`\), or: loopdesk gateway call exec\.approval\.resolve --params/)
    const params = JSON.parse(/--params '(\{.*\})'/.exec(c.err())![1]) as { id: string; decision: string }
    const other = cli()
    expect(await runCli(['gateway', 'call', 'exec.approval.resolve', '--params', JSON.stringify(params), '--url', gw.url], other.io)).toBe(0)
    expect(await run).toBe(0)
    expect(c.out()).toBe('done\n')
    expect(lastToolResult()).toContain('approved-by-params')
  })

  it('answered in another client while asking: the question is withdrawn and the answer reported', async () => {
    server.push(execTurn('echo approved-elsewhere'), { text: 'fine', chunks: 1 })
    let withdrawn = false
    const c = cli([
      (a) =>
        new Promise((resolve) => {
          const pending = rt.events.filter((e) => e.event === 'exec.approval.requested').map((e) => e.payload as ExecApprovalRequest)
          const req = pending[pending.length - 1]
          a.signal.addEventListener('abort', () => {
            withdrawn = true
            resolve(undefined)
          })
          void rt.call('exec.approval.resolve', { id: req.id, decision: 'allow-once' })
        }),
    ])
    expect(await c.agent('run it', 'agent:main:act4')).toBe(0)
    expect(withdrawn).toBe(true)
    expect(c.err()).toContain('answered elsewhere: allow-once')
    expect(lastToolResult()).toContain('approved-elsewhere')
  })

  it('a terminal that fails while asking is reported; the run goes on and the approval is answered elsewhere', async () => {
    server.push(execTurn('echo after-broken-terminal'), { text: 'still fine', chunks: 1 })
    const c = cli([
      async () => {
        const pending = rt.events.filter((e) => e.event === 'exec.approval.requested').map((e) => e.payload as ExecApprovalRequest)
        setTimeout(() => void rt.call('exec.approval.resolve', { id: pending[pending.length - 1].id, decision: 'allow-once' }), 50)
        throw new Error('stdin closed')
      },
    ])
    expect(await c.agent('run it', 'agent:main:act5')).toBe(0)
    expect(c.err()).toContain('could not ask: stdin closed')
    expect(c.out()).toBe('still fine\n')
  })

  it('--local with no terminal: nobody else can answer, so it is denied at once (not after the approval timeout)', async () => {
    const dir = tempDir('loopdesk-cli-act-local-')
    writeFileSync(join(dir, 'loopdesk.json'), JSON.stringify(testConfig(server)))
    server.push(execTurn('echo local-never'), { text: 'local reply', chunks: 1 })
    const c = cli()
    const started = Date.now()
    const code = await runCli(['agent', '--local', '-m', 'run it', '--state-dir', dir], c.io)
    expect(code).toBe(0)
    expect(Date.now() - started).toBeLessThan(20_000)
    expect(c.err()).toContain('no terminal to ask and no other client: denied')
    expect(c.err()).toContain('✗ exec denied: not run')
    expect(c.out()).toBe('local reply\n')
  })
})
