// What `loopdesk agent` shows on stderr besides the reply: each tool the run calls (and a failed tool's
// reason), and exec approvals — asked at the terminal when there is one, else how to answer them. Without
// this a run waiting on an approval looked hung until the approval expired.
import type { AgentEvent, AnyEvent, ApprovalDecision, ExecApprovalRequest, ExecApprovalResolved, SilenceData, ToolData } from '../../shared/events'
import { silenceText } from '../../shared/silence-text'
import { argsSummary, notRunFromText, oneLine, resultText, revealInvisible } from '../../shared/tool-display'
import type { CliIO } from '../io'
import { terminalText } from '../table'

export interface RunActivityDeps {
  io: CliIO
  /** sends a decision: through the gateway, or to the embedded runtime */
  resolve(id: string, decision: ApprovalDecision): Promise<void>
  /** whether another client (the window) can answer an approval; with none, one nobody here can answer is denied at once */
  othersCanAnswer: boolean
  /** the reply on stdout stopped mid-line: a stderr line starts on a fresh line */
  replyMidLine(): boolean
}

const ANSWERS: Record<string, ApprovalDecision> = {
  y: 'allow-once',
  yes: 'allow-once',
  a: 'allow-always',
  always: 'allow-always',
  n: 'deny',
  no: 'deny',
  '': 'deny',
}

/** The decision a typed answer means, or undefined to ask again. */
export function parseApprovalAnswer(answer: string): ApprovalDecision | undefined {
  return ANSWERS[answer.trim().toLowerCase()]
}

/**
 * A command as the question about it shows it: all of it, and a line break as a line break. The shell runs
 * each line as a command of its own, so "ls" + newline + "rm -rf …" must not read as "ls rm -rf …", nor be
 * cut off after 200 characters with the part that matters beyond the cut; invisible and text-direction
 * characters are named (⟨U+202E⟩), not passed to the terminal.
 */
export function approvalText(command: string): string {
  const lines = revealInvisible(command).text.split(/\r?\n/)
  return lines.length === 1 ? ` ${lines[0]}` : '\n' + lines.map((l) => `    ${l}`).join('\n')
}

export class RunActivity {
  /** approvals are asked one at a time, in the order they came */
  private asking: Promise<void> = Promise.resolve()
  /** pending approval id → its command (one line) and what withdraws its question (answered elsewhere, run over) */
  private readonly pending = new Map<string, { command: string; asking: AbortController }>()
  /** approvals this CLI answered (their resolved event is not news) */
  private readonly answeredHere = new Set<string>()
  private closed = false

  constructor(private readonly d: RunActivityDeps) {}

  /** An event of this CLI's run (the caller filters by runId). */
  onEvent(ev: AnyEvent): void {
    if (ev.event === 'agent' && ev.payload.stream === 'tool') this.onTool(ev.payload as AgentEvent<ToolData>)
    else if (ev.event === 'agent' && ev.payload.stream === 'error') this.onNotice(ev.payload.data)
    else if (ev.event === 'agent' && ev.payload.stream === 'silence') this.onSilence(ev.payload.data as SilenceData)
    else if (ev.event === 'exec.approval.requested') this.onRequested(ev.payload)
    else if (ev.event === 'exec.approval.resolved') this.onResolved(ev.payload)
  }

  /** The run is over: open questions are withdrawn. */
  close(): void {
    this.closed = true
    for (const p of this.pending.values()) p.asking.abort()
    this.pending.clear()
  }

  private line(text: string) {
    this.d.io.stderr(`${this.d.replyMidLine() ? '\n' : ''}${terminalText(text)}\n`)
  }

  private onTool(ev: AgentEvent<ToolData>) {
    const t = ev.data
    if (t.phase === 'start') {
      const args = argsSummary(t.args)
      this.line(`→ ${t.name}${args ? `: ${args}` : ''}`)
    } else if (t.phase === 'result' && t.isError) {
      const text = resultText(t.result)
      // a call that never ran did not "fail" (as the window's tool cards say)
      const notRun = notRunFromText(text)
      if (notRun === 'denied') return this.line(`✗ ${t.name} denied: not run`)
      if (notRun === 'approval-timeout') return this.line(`✗ ${t.name} not run: nobody answered the approval in time`)
      if (notRun === 'stopped') return this.line(`■ ${t.name} stopped`)
      const why = oneLine(text, 160)
      this.line(`✗ ${t.name} failed${why ? `: ${why}` : ''}`)
    }
  }

  /**
   * The model server refused a request that is sent again (runtime retry-notice.ts): without a line a rate-limited
   * run sat silent for as long as the server asked to wait, and then failed or answered with no hint why it was slow.
   */
  private onNotice(data: unknown) {
    const d = (data ?? {}) as { reason?: unknown; status?: unknown; retryAfterMs?: unknown }
    if (d.reason !== 'model_retry') return
    const status = typeof d.status === 'number' && d.status > 0 ? ` (HTTP ${d.status})` : ''
    const what = d.status === 429 ? 'rate limited by the model server' : 'the model server failed'
    const wait = typeof d.retryAfterMs === 'number' ? ` in ${Math.max(1, Math.round(d.retryAfterMs / 1000))} s` : ''
    this.line(`… ${what}${status}, retrying${wait}`)
  }

  /**
   * The model server went quiet (the runtime's `silence` stream): one line per silence, so a hung server does
   * not look like a slow reply until the run timeout; what follows (the reply going on, its error) says the rest.
   */
  private onSilence(d: SilenceData) {
    if (this.closed || d.phase !== 'silent') return
    const text = silenceText(d.since, d.silentMs, d.provider)
    const after = d.idleTimeoutMs ? `; the run fails after ${Math.round(d.idleTimeoutMs / 1000)} s without data` : ''
    this.line(`waiting: ${text[0].toLowerCase()}${text.slice(1)}${after} (Ctrl-C stops it)`)
  }

  private onRequested(req: ExecApprovalRequest) {
    if (this.closed || this.pending.has(req.id)) return
    const ctl = new AbortController()
    const command = oneLine(req.command, 200)
    this.pending.set(req.id, { command, asking: ctl })
    const seconds = Math.max(0, Math.round((req.expiresAt - Date.now()) / 1000))
    // several at once (runs of this session, parallel calls): each question says how many wait
    const waiting = this.waiting() > 1 ? `; ${this.waiting()} approvals waiting` : ''
    this.line(`? the agent wants to run:${approvalText(req.command)}\n  in ${req.cwd} (expires in ${seconds} s${waiting})`)
    const ask = this.d.io.ask
    if (!ask) {
      if (this.d.othersCanAnswer) {
        const params = JSON.stringify({ id: req.id, decision: 'allow-once' })
        const all = this.waiting() > 1 ? ` (all ${this.waiting()} at once there: Allow all / Deny all)` : ''
        // a headless gateway has no app window: its dashboard (the window in a browser) answers too
        this.line(`  approve or deny it in a Loopdesk window (the app, or \`loopdesk dashboard\`)${all}, or: loopdesk gateway call exec.approval.resolve --params '${params}'`)
      } else {
        // an embedded run with no terminal: nobody else exists to answer it
        this.line('  no terminal to ask and no other client: denied')
        void this.answer(req.id, 'deny')
      }
      return
    }
    this.asking = this.asking.then(async () => {
      try {
        while (!ctl.signal.aborted) {
          // asked in the order they came: with others waiting, this one's command is not the last line printed
          const n = this.waiting()
          const question = n > 1 ? `  ${n} approvals waiting; the first is:${approvalText(req.command)}\n  run it?` : '  run it?'
          const typed = await ask(`${terminalText(question)} [y] once, [a] always, [N] no: `, ctl.signal)
          if (typed === undefined) return
          const decision = parseApprovalAnswer(typed)
          if (decision) return await this.answer(req.id, decision)
        }
      } catch (err) {
        // the terminal went away (stdin closed): the approval is left to another client or its timeout
        this.line(`  could not ask: ${err instanceof Error ? err.message : String(err)}`)
      }
    })
  }

  /** approvals still waiting for an answer (one answered here waits only for its resolved event) */
  private waiting(): number {
    let n = 0
    for (const id of this.pending.keys()) if (!this.answeredHere.has(id)) n++
    return n
  }

  private async answer(id: string, decision: ApprovalDecision) {
    this.answeredHere.add(id)
    try {
      await this.d.resolve(id, decision)
    } catch (err) {
      this.answeredHere.delete(id)
      this.line(`  could not answer the approval: ${err instanceof Error ? err.message : String(err)}`)
    }
  }

  private onResolved(ev: ExecApprovalResolved) {
    const p = this.pending.get(ev.id)
    if (!p) return
    this.pending.delete(ev.id)
    p.asking.abort()
    if (this.answeredHere.delete(ev.id) || ev.resolvedBy === 'abort') return
    if (ev.resolvedBy === 'timeout') this.line(`✗ the approval for ${p.command} expired: denied`)
    else this.line(`  answered elsewhere: ${ev.decision}`)
  }
}
