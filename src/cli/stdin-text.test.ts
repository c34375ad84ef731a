// `agent -m -` and `config set --stdin` read standard input as UTF-8 text: one stream (a character split
// between two reads is kept whole), non-UTF-8 bytes refused rather than sent as U+FFFD, and reading stops past
// the size no gateway frame can carry.
import { Readable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { UsageError } from './args'
import { readStdinText, type CliIO } from './io'

const io = (chunks: Array<Uint8Array | string>): CliIO => ({
  env: {},
  stdout: () => {},
  stderr: () => {},
  onSignal: () => () => {},
  stdin: Readable.from(chunks, { objectMode: true }),
})

describe('readStdinText', () => {
  it('keeps a character whose bytes arrive in two reads', async () => {
    const bytes = Buffer.from('a é 日本 🎉\n')
    // each multi-byte character cut in the middle
    const chunks = [bytes.subarray(0, 3), bytes.subarray(3, 6), bytes.subarray(6, 10), bytes.subarray(10, 14), bytes.subarray(14)]
    expect(await readStdinText(io(chunks), '--message -')).toBe('a é 日本 🎉')
  })

  it('drops a leading byte-order mark (a file saved by a Windows editor)', async () => {
    expect(await readStdinText(io([Buffer.from('\ufeff{"a":1}\r\n')]), '--params -')).toBe('{"a":1}')
  })

  it('refuses input that is not UTF-8, naming the flag', async () => {
    const latin1 = Buffer.from('café', 'latin1')
    const err = await readStdinText(io([latin1]), '--stdin').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UsageError)
    expect((err as Error).message).toBe('--stdin: standard input is not UTF-8 text (a binary file, or text in another encoding: convert it first, e.g. with iconv)')
    // a sequence cut off by the end of the input is not UTF-8 either
    await expect(readStdinText(io([Buffer.from([0x61, 0xe6, 0x97])]), '--stdin')).rejects.toThrow('not UTF-8 text')
  })

  it('stops reading past the limit instead of holding all of it', async () => {
    let read = 0
    const endless = new Readable({
      read() {
        read += 65_536
        this.push(Buffer.alloc(65_536, 0x61))
      },
    })
    const err = await readStdinText({ ...io([]), stdin: endless }, '--message -', 1024 * 1024).catch((e: unknown) => e)
    expect((err as Error).message).toBe('--message -: standard input is over 1 MiB, more than the gateway takes in one request')
    expect(read).toBeLessThan(4 * 1024 * 1024)
  })
})
