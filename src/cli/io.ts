// CLI plumbing shared by the commands: injectable I/O (tests run commands in-process), exit codes, and
// mapping gateway failures to one clear line.
import { GatewayClientError, NOT_A_GATEWAY, UPGRADE_REFUSED } from './gateway-client'
import { UsageError } from './args'
import { relaunchedChildHooks } from './v8-pool'
import readline from 'node:readline/promises'

export const EXIT = {
  ok: 0,
  /** the method or run failed */
  failed: 1,
  usage: 2,
  /** no gateway at the URL */
  unreachable: 3,
  /** the gateway refused our credentials */
  auth: 4,
  timeout: 5,
  interrupted: 130,
} as const

export interface CliIO {
  env: NodeJS.ProcessEnv
  stdout(text: string): void
  stderr(text: string): void
  /** resolves on the first SIGINT/SIGTERM (the command decides what to do) */
  onSignal(handler: (signal: string) => void): () => void
  /**
   * Asks the person at the terminal and resolves with their line (undefined when `signal` aborts first).
   * Absent when there is nobody to ask (stdin or stderr is not a terminal).
   */
  ask?(question: string, signal: AbortSignal): Promise<string | undefined>
  /** standard input, for commands that read a value from it (`config set … --stdin`) */
  stdin?: AsyncIterable<string | Uint8Array>
}

/** All of standard input as text, without its last line break (`echo … |` adds one); `flag` names the option asking. */
export async function readStdinText(io: CliIO, flag: string): Promise<string> {
  if (!io.stdin) throw new UsageError(`${flag}: no standard input to read`)
  let text = ''
  for await (const chunk of io.stdin) text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')
  return text.replace(/\r?\n$/, '')
}

export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message)
    this.name = 'CliError'
  }
}

/** One line for the user, plus the exit code that goes with it. */
export function describeFailure(err: unknown, target?: string): { line: string; code: number } {
  if (err instanceof CliError) return { line: err.message, code: err.exitCode }
  // a message that already names where to look gets no second hint
  if (err instanceof UsageError) return { line: err.message.includes('(see: ') ? err.message : `${err.message} (see: loopdesk --help)`, code: EXIT.usage }
  if (err instanceof GatewayClientError) {
    switch (err.kind) {
      case 'unreachable':
        if (err.code === NOT_A_GATEWAY) return { line: err.message, code: EXIT.unreachable }
        return { line: `${err.message} — start one with \`loopdesk gateway run\` or open the desktop app`, code: EXIT.unreachable }
      case 'auth':
        return {
          line: `gateway auth failed: ${err.message}${err.detailCode ? ` [${err.detailCode}]` : ''} — check --token / LOOPDESK_GATEWAY_TOKEN`,
          code: EXIT.auth,
        }
      case 'timeout':
        return { line: err.message, code: EXIT.timeout }
      case 'handshake':
        if (err.code === UPGRADE_REFUSED) return { line: err.message, code: EXIT.failed }
        return { line: `gateway${target ? ` at ${target}` : ''} refused the connection: ${err.message}`, code: EXIT.failed }
      case 'closed':
        return { line: err.message, code: EXIT.failed }
      case 'request':
        return { line: `${err.code ?? 'ERROR'}: ${err.message}`, code: EXIT.failed }
    }
  }
  return { line: err instanceof Error ? err.message : String(err), code: EXIT.failed }
}

export function processIO(): CliIO {
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
  return {
    ask: interactive ? askOnTerminal : undefined,
    stdin: process.stdin,
    env: process.env,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    onSignal(handler) {
      // a gateway started again by its launcher (v8-pool.ts): report what we got, and stop when it is gone
      const launcher = relaunchedChildHooks(() => handler('SIGTERM'))
      const h = (sig: NodeJS.Signals) => {
        launcher.reportSignal(sig)
        handler(sig)
      }
      process.on('SIGINT', h)
      process.on('SIGTERM', h)
      return () => {
        process.off('SIGINT', h)
        process.off('SIGTERM', h)
        launcher.dispose()
      }
    },
  }
}

async function askOnTerminal(question: string, signal: AbortSignal): Promise<string | undefined> {
  if (signal.aborted) return undefined
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr, terminal: true })
  // Ctrl-C at the question is the same Ctrl-C as anywhere else (readline would only pause the input)
  rl.on('SIGINT', () => process.emit('SIGINT', 'SIGINT'))
  try {
    return await rl.question(question, { signal })
  } catch (err) {
    if (signal.aborted) {
      process.stderr.write('\n')
      return undefined
    }
    throw err
  } finally {
    rl.close()
  }
}
