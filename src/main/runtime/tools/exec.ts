// `exec`: a shell command in the workspace. Needs the user's approval unless allow-listed; runs with a
// timeout and an output cap; abort/timeout kill the whole process tree; partial output streams out.
import Type from 'typebox'
import type { ToolRunContext } from '../contracts'
import { matchesAllowlist } from './allowlist'
import { allowlistStartupReason } from './exec-startup-guard'
import type { ApprovalOutcome, DetailedApprovals } from './approvals'
import { commandEnv } from './exec-env'
import { CommandOutput } from './command-output'
import { workspaceRoot } from './paths'
import { killTree, spawnShell } from './process-tree'
import { textResult, ToolAbortedError, throwIfAborted } from './result'
import { defineTool } from './spec'

export const EXEC_MAX_TIMEOUT_SECONDS = 24 * 3600
export const EXEC_UPDATE_INTERVAL_MS = 250
/** After the shell exits, how long to wait for background children still holding its pipes. */
const PIPE_GRACE_MS = 250

const params = Type.Object({
  command: Type.String({ description: 'Shell command, run with /bin/sh -c in the workspace directory' }),
  timeoutSeconds: Type.Optional(
    Type.Integer({ minimum: 1, maximum: EXEC_MAX_TIMEOUT_SECONDS, description: 'Kill the command after this many seconds' }),
  ),
})

export class ExecDeniedError extends Error {
  constructor(
    message: string,
    readonly reason: 'user' | 'timeout',
  ) {
    super(message)
    this.name = 'ExecDeniedError'
  }
}

/**
 * How a command came to run, kept in its result's details so a reloaded transcript can still say who decided:
 * the configured allowlist, the user once, the user always (this run's answer), or an earlier "always".
 */
export type ExecApproval = 'allowlist' | 'allow-once' | 'allow-always' | 'allowed-before'

async function approve(ctx: ToolRunContext, command: string, cwd: string, toolCallId: string, signal?: AbortSignal): Promise<ExecApproval> {
  // an allow-listed command that names a start-up file or git's user-wide config is asked about all the same
  // (not under a lone "*": the user turned approvals off, shell syntax included)
  if (matchesAllowlist(command, ctx.execAllowlist)) {
    if (ctx.execAllowlist.some((e) => e.trim() === '*') || !allowlistStartupReason(command, cwd, undefined, ctx.workspaceDir)) return 'allowlist'
  }
  const req = { runId: ctx.runId, sessionKey: ctx.sessionKey, toolCallId, command, cwd }
  const detailed = (ctx.approvals as Partial<DetailedApprovals>).requestDetailed
  let outcome: ApprovalOutcome
  if (typeof detailed === 'function') {
    outcome = await detailed.call(ctx.approvals, req, signal)
  } else {
    const decision = await ctx.approvals.request(req, signal)
    outcome = { decision, resolvedBy: signal?.aborted ? 'abort' : 'user' }
  }
  if (outcome.decision !== 'deny') return outcome.resolvedBy === 'allowlist' ? 'allowed-before' : outcome.decision
  if (outcome.resolvedBy === 'abort' || signal?.aborted) throw new ToolAbortedError('exec')
  if (outcome.resolvedBy === 'timeout') {
    throw new ExecDeniedError('exec approval timed out: nobody approved the command, so it was not run', 'timeout')
  }
  throw new ExecDeniedError('exec denied by user: the command was not run', 'user')
}

interface RunOutcome {
  code: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  aborted: boolean
  output: CommandOutput
  durationMs: number
}

function runCommand(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  maxChars: number,
  signal: AbortSignal | undefined,
  onOutput: () => void,
  output = new CommandOutput(maxChars),
): Promise<RunOutcome> {
  const started = Date.now()
  return new Promise<RunOutcome>((resolve, reject) => {
    const child = spawnShell(command, cwd, env)
    let timedOut = false
    let aborted = false
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined
    let settled = false
    let graceTimer: NodeJS.Timeout | undefined

    child.stdout!.on('data', (b: Buffer) => {
      output.push('stdout', b)
      onOutput()
    })
    child.stderr!.on('data', (b: Buffer) => {
      output.push('stderr', b)
      onOutput()
    })

    const onAbort = () => {
      aborted = true
      killTree(child)
    }
    const timer = timeoutMs > 0 ? setTimeout(() => ((timedOut = true), killTree(child)), timeoutMs) : undefined
    signal?.addEventListener('abort', onAbort, { once: true })

    const finish = () => {
      if (settled || !exit) return
      settled = true
      if (timer) clearTimeout(timer)
      if (graceTimer) clearTimeout(graceTimer)
      signal?.removeEventListener('abort', onAbort)
      output.end()
      // Background children may keep the pipes open; stop reading so the call can return.
      child.stdout?.destroy()
      child.stderr?.destroy()
      resolve({ ...exit, timedOut, aborted, output, durationMs: Date.now() - started })
    }

    child.on('error', (err) => {
      if (settled) return
      settled = true
      if (timer) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      reject(new Error(`failed to start /bin/sh: ${err.message}`))
    })
    child.on('exit', (code, sig) => {
      exit = { code, signal: sig }
      graceTimer = setTimeout(finish, PIPE_GRACE_MS)
    })
    child.on('close', () => finish())
  })
}

function throttle(fn: () => void, ms: number): { call(): void; flush(): void; cancel(): void } {
  let last = 0
  let timer: NodeJS.Timeout | undefined
  const run = () => {
    timer = undefined
    last = Date.now()
    fn()
  }
  return {
    call() {
      if (timer) return
      const wait = last + ms - Date.now()
      if (wait <= 0) run()
      else timer = setTimeout(run, wait)
    },
    flush() {
      if (timer) {
        clearTimeout(timer)
        run()
      }
    },
    cancel() {
      if (timer) clearTimeout(timer)
      timer = undefined
    },
  }
}

export const execTool = defineTool(
  {
    name: 'exec',
    label: 'Run command',
    description:
      'Run a shell command (/bin/sh -c) in the workspace directory and return its combined stdout/stderr. ' +
      'Unless the command is allow-listed the user must approve it first. The command is killed (with all its child processes, detached ones too) ' +
      'when it exceeds its timeout. Long output is shortened in the middle. Non-interactive: stdin is empty. ' +
      "Model-provider API keys and Loopdesk's own tokens are not in the command's environment.",
    parameters: params,
    needsApproval: true,
    executionMode: 'sequential',
  },
  async (ctx, p, signal, toolCallId, onUpdate) => {
    throwIfAborted(signal, 'exec')
    const command = p.command.trim()
    if (!command) throw new Error('command must not be empty')
    const cwd = await workspaceRoot(ctx.workspaceDir)

    const approval = await approve(ctx, command, cwd, toolCallId, signal)
    throwIfAborted(signal, 'exec')

    const timeoutSec = Math.min(p.timeoutSeconds ?? ctx.execTimeoutSeconds, EXEC_MAX_TIMEOUT_SECONDS)
    const output = new CommandOutput(ctx.execMaxOutputChars)
    const update = throttle(() => {
      try {
        onUpdate?.({ content: [{ type: 'text', text: output.shown() }], details: { running: true, chars: output.text.totalChars } })
      } catch {
        // a failing listener must not break the command
      }
    }, EXEC_UPDATE_INTERVAL_MS)
    let r: RunOutcome
    try {
      r = await runCommand(command, cwd, commandEnv(process.env, ctx.execEnv), timeoutSec > 0 ? timeoutSec * 1000 : 0, ctx.execMaxOutputChars, signal, () => onUpdate && update.call(), output)
    } finally {
      update.cancel()
    }

    const text = r.output.shown()
    const shown = text.length ? text : '(no output)'
    const details = { exitCode: r.code, signal: r.signal, durationMs: r.durationMs, ...r.output.details, cwd, approval }
    if (r.aborted) throw new Error(`exec aborted: the command and its child processes were killed\n\nOutput so far:\n${shown}`)
    if (r.timedOut) {
      throw new Error(`exec timed out after ${timeoutSec}s: the command and its child processes were killed\n\nOutput so far:\n${shown}`)
    }
    if (r.code !== 0) {
      const how = r.code === null ? `was killed by ${r.signal}` : `exited with code ${r.code}`
      throw new Error(`Command ${how}\n\n${shown}`)
    }
    return textResult(shown, details)
  },
)
