// Model server process for the gateway bench: "stream <N> deltas" streams N text deltas of "tok ";
// anything else gets a short reply in 4 chunks. Prints one JSON line {url, openaiBaseUrl} and serves
// until stdin closes.
import { startModelServer } from '../test/fixtures/model-server'

const server = await startModelServer({
  captureBodies: false,
  fallback: (req) => {
    const msgs = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>
    const last = msgs[msgs.length - 1]
    const text = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '')
    const m = /stream (\d+) deltas/.exec(text)
    if (m) return { textChunks: Array.from({ length: Number(m[1]) }, () => 'tok '), usage: { input: 20, output: Number(m[1]) } }
    return { text: 'Sure — here is a short answer to that.', chunks: 4, usage: { input: 200, output: 12 } }
  },
})
process.stdout.write(JSON.stringify({ url: server.url, openaiBaseUrl: server.openaiBaseUrl }) + '\n')
process.stdin.on('end', () => void server.close().then(() => process.exit(0)))
process.stdin.resume()
