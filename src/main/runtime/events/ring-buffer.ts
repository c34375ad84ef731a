/** Fixed-capacity FIFO that overwrites its oldest item: O(1) push, no array shifting on the hot path. */
export class RingBuffer<T> {
  private readonly items: (T | undefined)[]
  private start = 0
  private count = 0

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('ring capacity must be an integer >= 1')
    this.items = new Array(capacity)
  }

  get size(): number {
    return this.count
  }

  /** Adds an item; returns the oldest one when it had to make room. */
  push(item: T): T | undefined {
    const idx = (this.start + this.count) % this.capacity
    const evicted = this.count === this.capacity ? this.items[idx] : undefined
    this.items[idx] = item
    if (this.count < this.capacity) this.count++
    else this.start = (this.start + 1) % this.capacity
    return evicted
  }

  /** Removes and returns the oldest item. */
  shift(): T | undefined {
    if (this.count === 0) return undefined
    const item = this.items[this.start]
    this.items[this.start] = undefined
    this.start = (this.start + 1) % this.capacity
    this.count--
    return item
  }

  /** The newest `limit` items (all when omitted), oldest first. */
  last(limit = this.count): T[] {
    const n = Math.max(0, Math.min(limit, this.count))
    const out: T[] = new Array(n)
    const first = this.start + this.count - n
    for (let i = 0; i < n; i++) out[i] = this.items[(first + i) % this.capacity] as T
    return out
  }

  clear(): void {
    this.items.fill(undefined)
    this.start = 0
    this.count = 0
  }
}
