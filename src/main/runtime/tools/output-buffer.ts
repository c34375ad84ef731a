// Bounded capture of process output: keeps the first `head` and the last `tail` characters and counts
// what was dropped in between, so memory stays flat however much a command prints. It also counts the bytes
// and lines the command produced, so its marker can say how big the whole output was.
import { countLines, joinAroundMarker, snapHeadEnd, snapTailStart, truncationMarker } from './output-cut'

export class HeadTailBuffer {
  private head = ''
  private tail = ''
  private dropped = 0
  private bytes = 0
  private newlines = 0
  private last = ''
  /** the last dropped character: a newline there means the tail starts a line */
  private beforeTail = ''
  private readonly headCap: number
  private readonly tailCap: number

  constructor(maxChars: number, headShare = 0.3) {
    const cap = Math.max(200, Math.floor(maxChars))
    this.headCap = Math.floor(cap * headShare)
    this.tailCap = cap - this.headCap
  }

  /** `bytes`: what the chunk was on the wire (a decoder's leftovers count 0: their bytes came with an earlier chunk). */
  push(chunk: string, bytes = Buffer.byteLength(chunk)): void {
    this.bytes += bytes
    if (!chunk) return
    for (let i = chunk.indexOf('\n'); i !== -1; i = chunk.indexOf('\n', i + 1)) this.newlines++
    this.last = chunk[chunk.length - 1]
    if (this.head.length < this.headCap) {
      const room = this.headCap - this.head.length
      this.head += chunk.slice(0, room)
      chunk = chunk.slice(room)
      if (!chunk) return
    }
    this.tail += chunk
    if (this.tail.length > this.tailCap) {
      const cut = this.tail.length - this.tailCap
      this.dropped += cut
      this.beforeTail = this.tail[cut - 1]
      this.tail = this.tail.slice(cut)
    }
  }

  get truncated(): boolean {
    return this.dropped > 0
  }

  get totalChars(): number {
    return this.head.length + this.tail.length + this.dropped
  }

  get totalBytes(): number {
    return this.bytes
  }

  get totalLines(): number {
    return this.newlines + (this.last && this.last !== '\n' ? 1 : 0)
  }

  toString(): string {
    if (!this.dropped) return this.head + this.tail
    // cut at line boundaries where one is near, so no line is shown half
    const head = this.head.slice(0, snapHeadEnd(this.head, this.head.length))
    const tail = this.beforeTail === '\n' ? this.tail : this.tail.slice(snapTailStart(' ' + this.tail, 1) - 1)
    const marker = truncationMarker({ lines: this.totalLines, amount: this.bytes, unit: 'bytes' }, countLines(head), countLines(tail))
    return joinAroundMarker(head, marker, tail)
  }
}
