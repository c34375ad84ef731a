// Several exec approvals waiting at once: the terminal asks them in order and says how many wait.
import { describe, expect, it } from 'vitest'
import type { ExecApprovalRequest } from '../shared/events'
import { RunActivity } from './commands/run-activity'
import type { CliIO } from './io'

const req = (id: string, command: string): ExecApprovalRequest => ({
  id,
  runId: 'r1',
  sessionKey: 'agent:main:main',
  toolCallId: `call-${id}`,
  command,
  cwd: '/w',
  createdAt: Date.now(),
  expiresAt: Date.now() + 60_000,
})

function setup(ask: boolean) {
  let err = ''
  const questions: string[] = []
  const answers: Array<(s: string) => void> = []
  const resolved: Array<[string, string]> = []
  const io = {
    stdout: () => {},
    stderr: (s: string) => {
      err += s
    },
    ...(ask
      ? {
          ask: (q: string) => {
            questions.push(q)
            return new Promise<string>((r) => answers.push(r))
          },
        }
      : {}),
  } as unknown as CliIO
  const activity = new RunActivity({
    io,
    othersCanAnswer: true,
    replyMidLine: () => false,
    resolve: async (id, d) => {
      resolved.push([id, d])
    },
  })
  return { activity, questions, answers, resolved, err: () => err }
}

const tick = () => new Promise((r) => setTimeout(r, 0))

describe('several approvals waiting at the terminal', () => {
  it('each request line and question says how many wait; the question names the command it is about', async () => {
    const t = setup(true)
    t.activity.onEvent({ event: 'exec.approval.requested', payload: req('a', 'make build') })
    await tick()
    expect(t.questions).toEqual(['  run it? [y] once, [a] always, [N] no: '])
    t.activity.onEvent({ event: 'exec.approval.requested', payload: req('b', 'make deploy') })
    t.activity.onEvent({ event: 'exec.approval.requested', payload: req('c', 'rm -rf dist') })
    expect(t.err()).toContain('? the agent wants to run: make deploy\n  in /w (expires in 60 s; 2 approvals waiting)')
    expect(t.err()).toContain('? the agent wants to run: rm -rf dist\n  in /w (expires in 60 s; 3 approvals waiting)')
    t.answers[0]('y')
    await tick()
    await tick()
    t.activity.onEvent({ event: 'exec.approval.resolved', payload: { id: 'a', runId: 'r1', sessionKey: 'agent:main:main', decision: 'allow-once', resolvedBy: 'user', ts: Date.now() } })
    await tick()
    // the last line printed was about rm -rf dist: the question says which one it asks about now
    expect(t.questions[1]).toBe('  2 approvals waiting; the first is: make deploy\n  run it? [y] once, [a] always, [N] no: ')
    expect(t.resolved).toEqual([['a', 'allow-once']])
    t.activity.close()
  })

  it('without a terminal: the hint says the window can answer them all at once', () => {
    const t = setup(false)
    t.activity.onEvent({ event: 'exec.approval.requested', payload: req('a', 'make build') })
    expect(t.err()).not.toContain('approvals waiting')
    t.activity.onEvent({ event: 'exec.approval.requested', payload: req('b', 'make deploy') })
    expect(t.err()).toContain('2 approvals waiting')
    expect(t.err()).toContain('approve or deny it in a Loopdesk window (the app, or `loopdesk dashboard`) (all 2 at once there: Allow all / Deny all), or:')
  })
})
