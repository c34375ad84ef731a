// What a command printed, as exec keeps it: the text streams within the output cap (`output-buffer.ts`, its
// marker stating the real size), a binary stream only counted (`binary-output.ts`), shown as a terminal would.
import { StringDecoder } from 'node:string_decoder'
import { BinarySniffer, binaryNote } from './binary-output'
import { HeadTailBuffer } from './output-buffer'
import { terminalText } from './terminal-text'

/** What a command printed, per stream binary or text, kept within the output cap. */
export class CommandOutput {
  readonly text: HeadTailBuffer
  readonly binary = { stdout: new BinarySniffer(), stderr: new BinarySniffer() }
  private readonly decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') }

  constructor(maxChars: number) {
    this.text = new HeadTailBuffer(maxChars)
  }

  push(stream: 'stdout' | 'stderr', b: Buffer): void {
    // a binary stream is counted, not decoded: its bytes would reach the card and the model as U+FFFD
    if (!this.binary[stream].feed(b)) this.text.push(this.decoders[stream].write(b), b.length)
  }

  end(): void {
    for (const s of ['stdout', 'stderr'] as const) if (!this.binary[s].isBinary) this.text.push(this.decoders[s].end(), 0)
  }

  /** The text as a terminal shows it, then a note per binary stream. */
  shown(): string {
    const text = terminalText(this.text.toString())
    const note = binaryNote(this.binary)
    if (!note) return text
    return text ? `${text}${text.endsWith('\n') ? '' : '\n'}${note}` : note
  }

  get details(): { truncated: boolean; bytes: number; lines: number; binaryBytes?: { stdout?: number; stderr?: number } } {
    const { stdout, stderr } = this.binary
    const binaryBytes = stdout.isBinary || stderr.isBinary
      ? { ...(stdout.isBinary ? { stdout: stdout.hidden } : {}), ...(stderr.isBinary ? { stderr: stderr.hidden } : {}) }
      : undefined
    return { truncated: this.text.truncated, bytes: this.text.totalBytes, lines: this.text.totalLines, ...(binaryBytes ? { binaryBytes } : {}) }
  }
}
