// Bounded capture of process output: keeps the first `head` and the last `tail` characters and counts
// what was dropped in between, so memory stays flat however much a command prints.
export class HeadTailBuffer {
  private head = ''
  private tail = ''
  private dropped = 0
  private readonly headCap: number
  private readonly tailCap: number

  constructor(maxChars: number, headShare = 0.3) {
    const cap = Math.max(200, Math.floor(maxChars))
    this.headCap = Math.floor(cap * headShare)
    this.tailCap = cap - this.headCap
  }

  push(chunk: string): void {
    if (!chunk) return
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
      this.tail = this.tail.slice(cut)
    }
  }

  get truncated(): boolean {
    return this.dropped > 0
  }

  get totalChars(): number {
    return this.head.length + this.tail.length + this.dropped
  }

  toString(): string {
    if (!this.dropped) return this.head + this.tail
    return `${this.head}\n\n… [${this.dropped} characters of output omitted] …\n\n${this.tail}`
  }
}
