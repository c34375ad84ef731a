import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ExecApprovalRequest } from '../../../shared/events'
import { ApiError } from '../../api/errors'
import { matchesAllowlist } from './allowlist'
import { ApprovalBroker, type ApprovalEvent } from './approvals'
import { HeadTailBuffer } from './output-buffer'
import { subreaperPerl } from './process-tree'
import { makeCtx, makeSandbox, run, textOf, type Sandbox } from './test-helpers'

let sb: Sandbox
beforeEach(() => {
  sb = makeSandbox()
})
afterEach(() => sb.cleanup())

/** Alive = exists and is not a zombie (PID 1 here may not reap orphans). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

async function waitDead(pids: number[], ms = 3000): Promise<number[]> {
  const until = Date.now() + ms
  for (;;) {
    const living = pids.filter(alive)
    if (!living.length || Date.now() > until) return living
    await new Promise((r) => setTimeout(r, 50))
  }
}

// A shell with two background children and a nested shell with its own background grandchild.
const TREE_CMD = `sleep 30 & echo "pid:$!"; (sleep 31 & echo "pid:$!"; wait) & echo "pid:$!"; echo "pid:$$"; wait`

/** the parent pid in /proc/<pid>/stat (0 when it is gone) */
function parentOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return 0
  }
}

function pidsIn(text: string): number[] {
  return [...text.matchAll(/pid:(\d+)/g)].map((m) => Number(m[1]))
}

const allowAll = { execAllowlist: ['*'] }

describe('exec: running commands', () => {
  it('runs in the workspace and returns combined output', async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    const r = await run(ctx, 'exec', { command: 'echo out; echo err >&2; touch made.txt' })
    expect(textOf(r)).toBe('out\nerr\n')
    expect(existsSync(path.join(sb.ws, 'made.txt'))).toBe(true)
    expect(r.details).toMatchObject({ exitCode: 0, truncated: false })
  })

  it("does not pass Loopdesk's own secrets to commands", async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    process.env.LOOPDESK_GATEWAY_TOKEN = 'tok-secret'
    process.env.LOOPDESK_TEST_PLAIN = 'visible'
    try {
      const r = await run(ctx, 'exec', { command: 'echo "[$LOOPDESK_GATEWAY_TOKEN][$LOOPDESK_TEST_PLAIN][$PAGER]"' })
      expect(textOf(r)).toBe('[][visible][cat]\n')
    } finally {
      delete process.env.LOOPDESK_GATEWAY_TOKEN
      delete process.env.LOOPDESK_TEST_PLAIN
    }
  })

  it('keeps provider API keys, configured key variables, tokens and passwords out of commands unless passed through', async () => {
    const secrets: Record<string, string> = {
      OPENAI_API_KEY: 'sk-openai-secret',
      ANTHROPIC_API_KEY: 'sk-ant-secret',
      ANTHROPIC_OAUTH_TOKEN: 'oauth-secret',
      GEMINI_API_KEY: 'gem-secret',
      SOME_SERVICE_APIKEY: 'svc-secret',
      MY_LLM_CRED: 'configured-secret', // a provider's apiKeyEnv: secret whatever its name
      LOOPDESK_GATEWAY_TOKEN: 'gw-secret',
      AWS_SECRET_ACCESS_KEY: 'aws-secret',
      HF_TOKEN: 'hf-secret',
      GITHUB_TOKEN: 'gh-token',
      LOOPDESK_TEST_DB_PASSWORD: 'db-secret',
      LOOPDESK_TEST_PLAIN: 'visible',
    }
    Object.assign(process.env, secrets)
    const show = 'for v in ' + Object.keys(secrets).join(' ') + '; do eval "echo $v=\\${$v:-}"; done'
    try {
      const policy = { passthrough: [], secretNames: ['MY_LLM_CRED'] }
      const strict = textOf(await run(makeCtx(sb.ws, { ...allowAll, execEnv: policy }), 'exec', { command: show }))
      for (const v of Object.values(secrets)) {
        if (v !== 'visible') expect(strict).not.toContain(v)
      }
      expect(strict).toContain('OPENAI_API_KEY=\n')
      expect(strict).toContain('MY_LLM_CRED=\n')
      expect(strict).toContain('GITHUB_TOKEN=\n') // not a provider credential, but a token by its name
      expect(strict).toContain('LOOPDESK_TEST_DB_PASSWORD=\n')
      expect(strict).toContain('LOOPDESK_TEST_PLAIN=visible\n')
      // without a config policy (no runner config) the built-in rules still apply
      const bare = textOf(await run(makeCtx(sb.ws, allowAll), 'exec', { command: 'echo "[$OPENAI_API_KEY][$LOOPDESK_GATEWAY_TOKEN]"' }))
      expect(bare).toBe('[][]\n')
      // the user can let named variables (or prefixes) through explicitly
      const open = { passthrough: ['OPENAI_API_KEY', 'AWS_*', 'GITHUB_TOKEN'], secretNames: ['MY_LLM_CRED'] }
      const t = textOf(await run(makeCtx(sb.ws, { ...allowAll, execEnv: open }), 'exec', { command: show }))
      expect(t).toContain('OPENAI_API_KEY=sk-openai-secret\n')
      expect(t).toContain('GITHUB_TOKEN=gh-token\n')
      expect(t).toContain('LOOPDESK_TEST_DB_PASSWORD=\n')
      expect(t).toContain('AWS_SECRET_ACCESS_KEY=aws-secret\n')
      expect(t).toContain('ANTHROPIC_API_KEY=\n')
      expect(t).toContain('MY_LLM_CRED=\n')
      const all = textOf(await run(makeCtx(sb.ws, { ...allowAll, execEnv: { passthrough: ['*'], secretNames: [] } }), 'exec', { command: show }))
      expect(all).toContain('LOOPDESK_GATEWAY_TOKEN=gw-secret\n')
    } finally {
      for (const k of Object.keys(secrets)) delete process.env[k]
    }
  })

  it('throws with the exit code and output on failure', async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    await expect(run(ctx, 'exec', { command: 'echo oops >&2; exit 3' })).rejects.toThrow(/^Command exited with code 3\n\noops/)
  })

  it('timeout kills the whole process tree', async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    const started = Date.now()
    const err = (await run(ctx, 'exec', { command: TREE_CMD, timeoutSeconds: 1 }).catch((e) => e)) as Error
    expect(err.message).toMatch(/timed out after 1s/)
    expect(Date.now() - started).toBeLessThan(5000)
    const pids = pidsIn(err.message)
    expect(pids.length).toBe(4)
    expect(await waitDead(pids)).toEqual([])
  })

  it('a plain `sh -c "sleep 30 & sleep 30"` tree dies on timeout', async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    const err = (await run(ctx, 'exec', {
      command: `sh -c 'sleep 30 & echo "pid:$!"; echo "pid:$$"; sleep 30'`,
      timeoutSeconds: 1,
    }).catch((e) => e)) as Error
    const pids = pidsIn(err.message)
    expect(pids.length).toBe(2)
    expect(await waitDead(pids)).toEqual([])
  })

  it('abort kills the whole process tree and streams partial output first', async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    const ac = new AbortController()
    const updates: string[] = []
    const p = run(ctx, 'exec', { command: TREE_CMD }, {
      signal: ac.signal,
      onUpdate: (u) => {
        updates.push(textOf(u))
        if (pidsIn(textOf(u)).length === 4) ac.abort()
      },
    })
    const err = (await p.catch((e) => e)) as Error
    expect(err.message).toMatch(/aborted/)
    const pids = pidsIn(updates[updates.length - 1])
    expect(pids.length).toBe(4)
    expect(await waitDead(pids)).toEqual([])
  })

  it.skipIf(process.platform !== 'linux')('abort also kills a child that cleared its environment and left the group (`env -i setsid sleep 1000`)', async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    const ac = new AbortController()
    let last = ''
    const p = run(ctx, 'exec', { command: `env -i /usr/bin/setsid /bin/sh -c 'echo "pid:$$"; exec sleep 1000'` }, {
      signal: ac.signal,
      onUpdate: (u) => {
        last = textOf(u)
        if (pidsIn(last).length === 1) ac.abort()
      },
    })
    const err = (await p.catch((e) => e)) as Error
    expect(err.message).toMatch(/aborted/)
    const pids = pidsIn(last)
    expect(pids.length).toBe(1)
    expect(await waitDead(pids)).toEqual([])
  })

  it('abort also kills an orphan that cleared its environment and left the group (`(env -i setsid sleep &)`: its parent exited first)', async (t) => {
    if (!subreaperPerl()) t.skip('needs Linux on x86-64/arm64 with perl: the shell is made a child subreaper through it (process-tree.ts)')
    const ctx = makeCtx(sb.ws, allowAll)
    const ac = new AbortController()
    let last = ''
    // the subshell exits at once: without a subreaper the sleep is re-parented to init — no group, no tag, no link
    const command = `echo "shell:$$"; (env -i /usr/bin/setsid /bin/sh -c 'echo "pid:$$"; exec sleep 1000' &); sleep 1000`
    let orphan: number | undefined
    let seen: { parent: number; shell: number; environ: string } | undefined
    try {
      const p = run(ctx, 'exec', { command }, {
        signal: ac.signal,
        onUpdate: (u) => {
          last = textOf(u)
          orphan ??= pidsIn(last)[0]
          const shell = Number(/shell:(\d+)/.exec(last)?.[1])
          if (orphan === undefined || ac.signal.aborted) return
          let cmdline = ''
          try {
            cmdline = readFileSync(`/proc/${orphan}/cmdline`, 'latin1')
          } catch {
            // not there yet
          }
          if (!cmdline.startsWith('sleep')) return
          seen = { parent: parentOf(orphan), shell, environ: readFileSync(`/proc/${orphan}/environ`, 'latin1') }
          ac.abort()
        },
      })
      const err = (await p.catch((e) => e)) as Error
      expect(err.message).toMatch(/aborted/)
      expect(seen).toBeDefined()
      expect(seen!.environ).not.toContain('LOOPDESK_EXEC_ID=') // env -i: no tag to find it by
      expect(seen!.parent).toBe(seen!.shell) // re-parented to the shell (the subreaper), not to init
      expect(await waitDead([orphan!])).toEqual([])
    } finally {
      if (orphan !== undefined && alive(orphan)) process.kill(orphan, 'SIGKILL')
    }
  })

  it('streams partial output through onUpdate while running', async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    const seen: Array<{ t: number; text: string }> = []
    const start = Date.now()
    await run(ctx, 'exec', { command: 'echo first; sleep 0.7; echo second' }, { onUpdate: (u) => seen.push({ t: Date.now() - start, text: textOf(u) }) })
    const early = seen.find((s) => s.text.includes('first'))
    expect(early).toBeDefined()
    expect(early!.text).not.toContain('second')
  })

  it('caps output keeping head and tail', async () => {
    const ctx = makeCtx(sb.ws, { ...allowAll, execMaxOutputChars: 2000 })
    const r = await run(ctx, 'exec', { command: 'seq 1 100000' })
    const t = textOf(r)
    expect(t.length).toBeLessThan(2100)
    expect(t.startsWith('1\n2\n3\n')).toBe(true)
    expect(t.trimEnd().endsWith('99999\n100000')).toBe(true)
    // the marker states what the command printed, not what was kept, and sits between whole lines
    const m = /\n(\d+)\n\[output truncated: 100,000 lines, 588,895 bytes; kept the first (\d+) and last (\d+) lines\]\n(\d+)\n/.exec(t)!
    expect(m[1]).toBe(m[2])
    expect(Number(m[4])).toBe(100_000 - Number(m[3]) + 1)
    expect(r.details).toMatchObject({ truncated: true, bytes: 588_895, lines: 100_000 })
  })

  it('does not hang when a background child keeps the pipes open after the shell exits', async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    const started = Date.now()
    const r = await run(ctx, 'exec', { command: 'sleep 5 & echo "pid:$!"; echo done' })
    expect(Date.now() - started).toBeLessThan(3000)
    expect(textOf(r)).toContain('done')
    for (const pid of pidsIn(textOf(r))) process.kill(pid, 'SIGKILL')
  })
})

describe('exec: approvals', () => {
  async function nextRequest(events: ApprovalEvent[], n = 1): Promise<ExecApprovalRequest> {
    for (let i = 0; i < 200; i++) {
      const reqs = events.filter((e) => e.event === 'exec.approval.requested')
      if (reqs.length >= n) return reqs[n - 1].payload as ExecApprovalRequest
      await new Promise((r) => setTimeout(r, 10))
    }
    throw new Error('no approval request emitted')
  }

  it('asks for approval and runs after allow-once', async () => {
    const ctx = makeCtx(sb.ws)
    const p = run(ctx, 'exec', { command: 'echo approved' }, { toolCallId: 'tc-9' })
    const req = await nextRequest(ctx.events)
    expect(req).toMatchObject({ runId: 'run-1', sessionKey: 'agent:main:main', toolCallId: 'tc-9', command: 'echo approved', cwd: sb.ws })
    expect(ctx.broker.pending('agent:main:main')).toHaveLength(1)
    ctx.broker.resolve(req.id, 'allow-once')
    expect(textOf(await p)).toBe('approved\n')
    expect(ctx.events.map((e) => e.event)).toEqual(['exec.approval.requested', 'exec.approval.resolved'])
    expect(ctx.events[1].payload).toMatchObject({ decision: 'allow-once', resolvedBy: 'user' })
    expect(ctx.broker.pending()).toHaveLength(0)
  })

  it('deny: the command is not run and the model is told', async () => {
    const ctx = makeCtx(sb.ws)
    const p = run(ctx, 'exec', { command: 'touch ran.txt' })
    ctx.broker.resolve((await nextRequest(ctx.events)).id, 'deny')
    await expect(p).rejects.toThrow(/exec denied by user/)
    expect(existsSync(path.join(sb.ws, 'ran.txt'))).toBe(false)
  })

  it('timeout denies', async () => {
    const ctx = makeCtx(sb.ws, { approvalTimeoutMs: 150 })
    await expect(run(ctx, 'exec', { command: 'touch ran.txt' })).rejects.toThrow(/approval timed out/)
    expect(existsSync(path.join(sb.ws, 'ran.txt'))).toBe(false)
    expect(ctx.events[1].payload).toMatchObject({ decision: 'deny', resolvedBy: 'timeout' })
  })

  it('abort while waiting denies with resolvedBy abort', async () => {
    const ctx = makeCtx(sb.ws)
    const ac = new AbortController()
    const p = run(ctx, 'exec', { command: 'touch ran.txt' }, { signal: ac.signal })
    await nextRequest(ctx.events)
    ac.abort()
    await expect(p).rejects.toThrow(/aborted/)
    expect(ctx.events[1].payload).toMatchObject({ decision: 'deny', resolvedBy: 'abort' })
    expect(existsSync(path.join(sb.ws, 'ran.txt'))).toBe(false)
  })

  it('allow-always skips approval for the same command in the same session only', async () => {
    const ctx = makeCtx(sb.ws)
    const p = run(ctx, 'exec', { command: 'echo again' })
    ctx.broker.resolve((await nextRequest(ctx.events)).id, 'allow-always')
    await p
    expect(textOf(await run(ctx, 'exec', { command: 'echo again' }))).toBe('again\n')
    expect(ctx.events.filter((e) => e.event === 'exec.approval.requested')).toHaveLength(1)
    // a different command still asks
    const p2 = run(ctx, 'exec', { command: 'echo other' })
    ctx.broker.resolve((await nextRequest(ctx.events, 2)).id, 'allow-once')
    await p2
    // another session sharing the broker still asks
    const other = { ...ctx, sessionKey: 'agent:main:other' }
    const p3 = run(other, 'exec', { command: 'echo again' })
    ctx.broker.resolve((await nextRequest(ctx.events, 3)).id, 'deny')
    await expect(p3).rejects.toThrow(/denied/)
  })

  it('allow-listed commands skip approval; prefix patterns refuse chained commands', async () => {
    const ctx = makeCtx(sb.ws, { execAllowlist: ['echo hi', 'ls*'] })
    expect(textOf(await run(ctx, 'exec', { command: 'echo hi' }))).toBe('hi\n')
    await run(ctx, 'exec', { command: 'ls -a' })
    expect(ctx.events).toHaveLength(0)
    const p = run(ctx, 'exec', { command: 'ls; touch ran.txt' })
    ctx.broker.resolve((await nextRequest(ctx.events)).id, 'deny')
    await expect(p).rejects.toThrow(/denied/)
    expect(existsSync(path.join(sb.ws, 'ran.txt'))).toBe(false)
  })
})

describe('ApprovalBroker', () => {
  it('rejects unknown or already answered ids with APPROVAL_NOT_FOUND', async () => {
    const events: ApprovalEvent[] = []
    const b = new ApprovalBroker({ emit: (e) => events.push(e), timeoutMs: 5000 })
    expect(() => b.resolve('nope', 'allow-once')).toThrow(ApiError)
    try {
      b.resolve('nope', 'deny')
    } catch (e) {
      expect((e as ApiError).code).toBe('APPROVAL_NOT_FOUND')
    }
    const p = b.request({ runId: 'r', sessionKey: 's', toolCallId: 't', command: 'x', cwd: '/' })
    const req = events[0].payload as ExecApprovalRequest
    expect(req.expiresAt - req.createdAt).toBe(5000)
    const resolved = b.resolve(req.id, 'allow-once')
    expect(resolved).toMatchObject({ id: req.id, runId: 'r', sessionKey: 's', decision: 'allow-once', resolvedBy: 'user' })
    await expect(p).resolves.toBe('allow-once')
    expect(() => b.resolve(req.id, 'deny')).toThrow(/no pending exec approval/)
  })

  it('survives a throwing emitter and denies everything on denyAll', async () => {
    const b = new ApprovalBroker({ emit: () => { throw new Error('listener down') }, timeoutMs: 5000 })
    const p = b.request({ runId: 'r', sessionKey: 's', toolCallId: 't', command: 'x', cwd: '/' })
    expect(b.pending()).toHaveLength(1)
    b.denyAll()
    await expect(p).resolves.toBe('deny')
  })

  it('an already-aborted signal denies without asking', async () => {
    const events: ApprovalEvent[] = []
    const b = new ApprovalBroker({ emit: (e) => events.push(e), timeoutMs: 5000 })
    const ac = new AbortController()
    ac.abort()
    await expect(b.request({ runId: 'r', sessionKey: 's', toolCallId: 't', command: 'x', cwd: '/' }, ac.signal)).resolves.toBe('deny')
    expect(events).toHaveLength(0)
  })
})

describe('helpers', () => {
  it('matchesAllowlist', () => {
    expect(matchesAllowlist('git status', ['git status*'])).toBe(true)
    expect(matchesAllowlist('git status --short', ['git status*'])).toBe(true)
    expect(matchesAllowlist('git status && rm -rf x', ['git status*'])).toBe(false)
    expect(matchesAllowlist('git status $(rm x)', ['git status*'])).toBe(false)
    expect(matchesAllowlist('git push', ['git status*'])).toBe(false)
    // a prefix ending inside a word matches whole words only
    expect(matchesAllowlist('git statusx', ['git status*'])).toBe(false)
    expect(matchesAllowlist('git status-evil --x', ['git status*'])).toBe(false)
    expect(matchesAllowlist('lsblk', ['ls*'])).toBe(false)
    expect(matchesAllowlist('ls\t-la', ['ls*'])).toBe(true)
    expect(matchesAllowlist('python3 -m pytest.evil', ['python3 -m pytest*'])).toBe(false)
    // one ending in a separator continues as written
    expect(matchesAllowlist('npm run test:unit', ['npm run test:*'])).toBe(true)
    expect(matchesAllowlist('./scripts/build.sh --fast', ['./scripts/*'])).toBe(true)
    expect(matchesAllowlist('git status', ['git status *'])).toBe(false)
    expect(matchesAllowlist('git status -s', ['git status *'])).toBe(true)
    expect(matchesAllowlist('npm test', ['npm test'])).toBe(true)
    expect(matchesAllowlist('npm test -- x', ['npm test'])).toBe(false)
    expect(matchesAllowlist('anything; at all', ['*'])).toBe(true)
  })

  it('HeadTailBuffer keeps head and tail within the cap, cut at line ends, counting bytes and lines', () => {
    const b = new HeadTailBuffer(1000)
    for (let i = 0; i < 10_000; i++) b.push(`${i} é\n`)
    const s = b.toString()
    expect(s.startsWith('0 é\n1 é\n2 é\n')).toBe(true)
    expect(s.endsWith('9998 é\n9999 é\n')).toBe(true)
    expect(s.length).toBeLessThan(1100)
    expect(b.truncated).toBe(true)
    expect(b.totalLines).toBe(10_000)
    expect(b.totalBytes).toBe(b.totalChars + 10_000) // é is two bytes
    expect(s).toMatch(/\n\d+ é\n\[output truncated: 10,000 lines, [\d,]+ bytes; kept the first \d+ and last \d+ lines\]\n\d+ é\n/)
  })
})

describe('exec: terminal output', () => {
  it('terminal control bytes do not reach the model: a stray one becomes a note, colours and progress redraws vanish', async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    const r = await run(ctx, 'exec', { command: `printf 'bell\\007\\n'; printf '\\033[32mgreen\\033[0m\\n 10%%\\r100%%\\n'` })
    expect(textOf(r)).toBe('bell\ngreen\n100%\n[1 control character removed (binary output?)]')
  })

  it('binary output is a note with its size, not replacement characters; a text stream beside it stays readable', async () => {
    const ctx = makeCtx(sb.ws, allowAll)
    const r = await run(ctx, 'exec', { command: `head -c 3000 /dev/urandom; echo 'warning: wrote random bytes' >&2` })
    expect(textOf(r)).toBe('warning: wrote random bytes\n[binary output on stdout: 3,000 bytes, not shown]')
    expect(r.details).toMatchObject({ binaryBytes: { stdout: 3000 } })
    const zeros = await run(ctx, 'exec', { command: 'head -c 5000 /dev/zero' })
    expect(textOf(zeros)).toBe('[binary output on stdout: 5,000 bytes, not shown]')
    // a failing command keeps its exit line and the note
    const failed = await run(ctx, 'exec', { command: 'head -c 100 /dev/urandom; exit 3' }).then(
      () => '',
      (e: Error) => e.message,
    )
    expect(failed).toBe('Command exited with code 3\n\n[binary output on stdout: 100 bytes, not shown]')
  })
})
