// Tells a command's binary output (`head -c 3000 /dev/urandom`, `cat image.png`) from text, per stream, so
// exec can say "binary output, 3,000 bytes, not shown" instead of filling the card and the model's context
// with replacement characters. The `read` tool asks `looksBinary` (a NUL in the first 8 KiB of a file); a
// stream comes in chunks, so this keeps its verdict across them and also counts invalid UTF-8 and control
// bytes: random bytes hold NULs only now and then (about one in 256), but most of them are not UTF-8.

/** The share of a stream's first bytes that may be invalid UTF-8 or control bytes before it counts as binary. */
const BAD_SHARE = 0.3
/** Fewer bytes than this say too little for the share to count (a split character, a lone escape). */
const MIN_SAMPLE = 64
/** The share is judged on a stream's first 8 KiB; a NUL later still makes it binary. */
const SAMPLE = 8192

function isControl(b: number): boolean {
  // tab, newline, carriage return, form feed, backspace and escape (colours, cursor moves) are terminal text
  return (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x08 && b !== 0x1b) || b === 0x7f
}

export class BinarySniffer {
  private binary = false
  private sampled = 0
  private bad = 0
  /** continuation bytes still expected by a UTF-8 sequence begun in an earlier chunk */
  private need = 0
  /** bytes of this stream not shown because it is binary */
  hidden = 0

  /** Takes the next chunk; true when the stream is binary (from this chunk on: the chunk is not shown). */
  feed(chunk: Uint8Array): boolean {
    if (!this.binary) this.judge(chunk)
    if (this.binary) this.hidden += chunk.length
    return this.binary
  }

  get isBinary(): boolean {
    return this.binary
  }

  private judge(chunk: Uint8Array): void {
    if (chunk.includes(0)) {
      this.binary = true
      return
    }
    if (this.sampled >= SAMPLE) return
    const n = Math.min(chunk.length, SAMPLE - this.sampled)
    for (let i = 0; i < n; i++) {
      const b = chunk[i]
      if (this.need > 0) {
        if ((b & 0xc0) === 0x80) {
          this.need--
          continue
        }
        this.bad++ // a sequence cut short
        this.need = 0
      }
      if (b < 0x80) {
        if (isControl(b)) this.bad++
      } else if (b >= 0xc2 && b <= 0xdf) this.need = 1
      else if (b >= 0xe0 && b <= 0xef) this.need = 2
      else if (b >= 0xf0 && b <= 0xf4) this.need = 3
      else this.bad++ // a stray continuation byte or one UTF-8 never uses
    }
    this.sampled += n
    if (this.sampled >= MIN_SAMPLE && this.bad / this.sampled > BAD_SHARE) this.binary = true
  }
}

/** e.g. `[binary output on stdout: 3,000 bytes, not shown]`; '' when nothing was hidden. */
export function binaryNote(streams: { stdout: BinarySniffer; stderr: BinarySniffer }): string {
  return (['stdout', 'stderr'] as const)
    .filter((k) => streams[k].isBinary)
    .map((k) => `[binary output on ${k}: ${streams[k].hidden.toLocaleString('en-US')} bytes, not shown]`)
    .join('\n')
}
