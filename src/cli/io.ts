// CLI plumbing shared by the commands: injectable I/O (tests run commands in-process), exit codes, and
// mapping gateway failures to one clear line.
import { GatewayClientError, NOT_A_GATEWAY, UPGRADE_REFUSED } from './gateway-client'
import { UsageError } from './args'
import { relaunchedChildHooks } from './v8-pool'
import readline from 'node:readline/promises'
import { GATEWAY_MAX_FRAME_BYTES } from '../shared/attachments'

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
  /** stdout (or stderr) was closed under us — `loopdesk … | head -1`: 128 + SIGPIPE, what a shell reports for `git log | head` */
  outputCut: 141,
} as const

/** the name a command's onSignal handler gets when the reader of its output went away */
export const OUTPUT_CLOSED = 'SIGPIPE'

export interface CliIO {
  env: NodeJS.ProcessEnv
  stdout(text: string): void
  stderr(text: string): void
  /**
   * Calls `handler` on SIGINT/SIGTERM, and with OUTPUT_CLOSED when stdout or stderr can take no more (its reader
   * went away, a full disk; the command decides what to do: what it follows has no reader any more, as after Ctrl-C)
   */
  onSignal(handler: (signal: string) => void): () => void
  /**
   * Asks the person at the terminal and resolves with their line (undefined when `signal` aborts first).
   * Absent when there is nobody to ask (stdin or stderr is not a terminal).
   */
  ask?(question: string, signal: AbortSignal): Promise<string | undefined>
  /** standard input, for commands that read a value from it (`config set … --stdin`) */
  stdin?: AsyncIterable<string | Uint8Array>
}

/** more than this on standard input cannot be sent: no gateway frame is larger */
export const MAX_STDIN_BYTES = GATEWAY_MAX_FRAME_BYTES

/**
 * All of standard input as text, without its last line break (`echo … |` adds one); `flag` names the option asking.
 * Decoded as one stream: a character split between two reads stayed two U+FFFD. Input that is not UTF-8 (a
 * Latin-1 file, an image) is refused rather than sent with its bytes replaced, and reading stops past
 * MAX_STDIN_BYTES (`-m - < /dev/zero` read until the process ran out of memory).
 */
export async function readStdinText(io: CliIO, flag: string, maxBytes = MAX_STDIN_BYTES): Promise<string> {
  if (!io.stdin) throw new UsageError(`${flag}: no standard input to read`)
  // (a leading byte-order mark, as Windows editors write one, goes: JSON.parse refused `--params -` with it)
  const decoder = new TextDecoder('utf-8', { fatal: true })
  let text = ''
  let bytes = 0
  try {
    for await (const chunk of io.stdin) {
      if (typeof chunk === 'string') {
        text += chunk
        bytes += Buffer.byteLength(chunk)
      } else {
        bytes += chunk.byteLength
        text += decoder.decode(chunk, { stream: true })
      }
      if (bytes > maxBytes) throw new UsageError(`${flag}: standard input is over ${Math.floor(maxBytes / 1024 / 1024)} MiB, more than the gateway takes in one request`)
    }
    text += decoder.decode()
  } catch (err) {
    if (err instanceof TypeError && (err as { code?: string }).code === 'ERR_ENCODING_INVALID_ENCODED_DATA') {
      throw new UsageError(`${flag}: standard input is not UTF-8 text (a binary file, or text in another encoding: convert it first, e.g. with iconv)`)
    }
    throw err
  }
  return text.replace(/\r?\n$/, '')
}

export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message)
    this.name = 'CliError'
  }
}

/** What `--json` prints on stdout for a command that failed before printing anything else (one line). */
export function jsonErrorLine(message: string, exitCode: number, codes: { code?: string; detailCode?: string } = {}): string {
  return JSON.stringify({ ok: false, error: { message, exitCode, ...codes } }) + '\n'
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

/**
 * The process's I/O. `outputFailure()`: the exit code a failed write calls for — 141 for a closed stdout or stderr
 * (EPIPE), 1 for another failure (ENOSPC: `> /dev/full`) — or undefined.
 */
export function processIO(): CliIO & { outputFailure(): number | undefined } {
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY)
  const handlers = new Set<(signal: string) => void>()
  const closed = new Set<NodeJS.WriteStream>()
  let failure: number | undefined
  // The reader went away (`loopdesk … | head -1`). Node ignores SIGPIPE, so a write fails with EPIPE instead of
  // ending the process as it ends `git log`: nothing more goes to that stream, and a command following something
  // (a run) is told as on Ctrl-C — it used to exit 0 at once while its run went on in the gateway for nobody
  // (and on any other write error, exit 1 at once, the run going on the same way).
  const onWriteError = (stream: NodeJS.WriteStream) => (err: NodeJS.ErrnoException) => {
    if (closed.has(stream)) return
    closed.add(stream)
    if (err.code === 'EPIPE') failure ??= EXIT.outputCut
    else {
      failure = EXIT.failed
      if (!closed.has(process.stderr)) process.stderr.write(`loopdesk: cannot write the output: ${err.code ?? err.message}\n`)
    }
    // (also when the command has returned already: its last write failed after it)
    process.exitCode = failure
    if (closed.size === 1) for (const h of [...handlers]) h(OUTPUT_CLOSED)
  }
  process.stdout.on('error', onWriteError(process.stdout))
  process.stderr.on('error', onWriteError(process.stderr))
  const write = (stream: NodeJS.WriteStream) => (t: string) => {
    if (!closed.has(stream) && !stream.destroyed) stream.write(t)
  }
  return {
    ask: interactive ? askOnTerminal : undefined,
    stdin: process.stdin,
    env: process.env,
    stdout: write(process.stdout),
    stderr: write(process.stderr),
    outputFailure: () => failure,
    onSignal(handler) {
      // a gateway started again by its launcher (v8-pool.ts): report what we got, and stop when it is gone
      const launcher = relaunchedChildHooks(() => handler('SIGTERM'))
      const h = (sig: NodeJS.Signals) => {
        launcher.reportSignal(sig)
        handler(sig)
      }
      process.on('SIGINT', h)
      process.on('SIGTERM', h)
      handlers.add(handler)
      return () => {
        process.off('SIGINT', h)
        process.off('SIGTERM', h)
        handlers.delete(handler)
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
