// Which addresses `web_fetch` may connect to. A model-chosen URL must not reach this machine (loopback:
// the gateway, dev servers), the local network (RFC 1918, unique-local IPv6) or link-local services such as
// the cloud metadata endpoint 169.254.169.254. Host names are resolved here once and the connection is
// pinned to the address that was checked, so a DNS answer that changes between check and connect
// (DNS rebinding) cannot slip through.
import dns from 'node:dns'
import net from 'node:net'
import { isOwnAddress } from './own-addresses'

export type AddressClass =
  | 'loopback'
  | 'unspecified'
  | 'private'
  | 'link-local'
  | 'unique-local'
  | 'multicast'
  | 'reserved'
  | 'public'

export interface NetPolicy {
  /** allow 127.0.0.0/8, ::1, 0.0.0.0 and `localhost` (local dev servers; tests) */
  allowLoopback?: boolean
  /** allow RFC 1918, 100.64.0.0/10 (CGNAT) and fc00::/7 */
  allowPrivateNetwork?: boolean
}

export interface PinnedAddress {
  address: string
  family: 4 | 6
}

export class BlockedAddressError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'BlockedAddressError'
  }
}

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0
const inV4 = (ip: number, base: number, bits: number) => bits === 0 || (ip >>> (32 - bits)) === (base >>> (32 - bits))

function parseV4(s: string): number | undefined {
  if (net.isIPv4(s) === false) return undefined
  const p = s.split('.').map(Number)
  return v4(p[0], p[1], p[2], p[3])
}

function classifyV4(ip: number): AddressClass {
  if (inV4(ip, v4(127, 0, 0, 0), 8)) return 'loopback'
  if (inV4(ip, v4(0, 0, 0, 0), 8)) return 'unspecified' // "this network": 0.0.0.0 reaches localhost on Linux
  if (inV4(ip, v4(10, 0, 0, 0), 8) || inV4(ip, v4(172, 16, 0, 0), 12) || inV4(ip, v4(192, 168, 0, 0), 16)) return 'private'
  if (inV4(ip, v4(100, 64, 0, 0), 10)) return 'private' // carrier-grade NAT / tailnets
  if (inV4(ip, v4(169, 254, 0, 0), 16)) return 'link-local' // includes 169.254.169.254 (cloud metadata)
  if (inV4(ip, v4(224, 0, 0, 0), 4)) return 'multicast'
  if (inV4(ip, v4(240, 0, 0, 0), 4)) return 'reserved' // includes 255.255.255.255
  if (inV4(ip, v4(192, 0, 0, 0), 24) || inV4(ip, v4(198, 18, 0, 0), 15)) return 'reserved' // IETF protocol / benchmarking
  return 'public'
}

/** 8 groups of 16 bits; undefined when not an IPv6 literal. Handles `::` and an embedded dotted IPv4 tail. */
function parseV6(s: string): number[] | undefined {
  let addr = s.replace(/%.*$/, '') // zone id (fe80::1%eth0)
  if (!net.isIPv6(addr)) return undefined
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(addr)
  if (dotted) {
    const n = parseV4(dotted[1])
    if (n === undefined) return undefined
    addr = addr.slice(0, dotted.index) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const halves = addr.split('::')
  if (halves.length > 2) return undefined
  const groups = (part: string) => (part ? part.split(':').map((x) => parseInt(x, 16)) : [])
  const left = groups(halves[0])
  if (halves.length === 1) return left.length === 8 ? left : undefined
  const right = groups(halves[1])
  const fill = 8 - left.length - right.length
  if (fill < 0) return undefined
  return [...left, ...new Array<number>(fill).fill(0), ...right]
}

function classifyV6(g: number[]): AddressClass {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0)
  if (zeroUpTo(7) && g[7] === 1) return 'loopback'
  if (zeroUpTo(8)) return 'unspecified'
  const embedded = (hi: number, lo: number) => classifyV4(((hi << 16) | lo) >>> 0)
  if (zeroUpTo(5) && g[5] === 0xffff) return embedded(g[6], g[7]) // IPv4-mapped ::ffff:a.b.c.d
  if (zeroUpTo(6)) return embedded(g[6], g[7]) // deprecated IPv4-compatible ::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embedded(g[6], g[7]) // NAT64
  if (g[0] === 0x2002) return embedded(g[1], g[2]) // 6to4 carries an IPv4 address
  if ((g[0] & 0xfe00) === 0xfc00) return 'unique-local' // fc00::/7
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local' // fe80::/10
  if ((g[0] & 0xffc0) === 0xfec0) return 'unique-local' // deprecated site-local
  if ((g[0] & 0xff00) === 0xff00) return 'multicast'
  return 'public'
}

/** Class of an IP literal; undefined when `ip` is not one. */
export function classifyAddress(ip: string): AddressClass | undefined {
  const a = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip
  const n = parseV4(a)
  if (n !== undefined) return classifyV4(n)
  const g = parseV6(a)
  return g ? classifyV6(g) : undefined
}

const DESCRIBE: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback (this machine) address',
  unspecified: 'an unspecified address (reaches this machine)',
  private: 'a private network address',
  'link-local': 'a link-local address (e.g. the cloud metadata service)',
  'unique-local': 'a unique-local (private) IPv6 address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
}

const OWN = "an address of this machine's own network interfaces"

/** What is wrong with contacting an address under the policy ("a private network address"); undefined when allowed. */
export function blockReason(ip: string, policy: NetPolicy): string | undefined {
  const cls = classifyAddress(ip)
  if (cls === undefined) return 'not an IP address'
  if ((cls === 'loopback' || cls === 'unspecified') && policy.allowLoopback) return undefined
  // the machine's own LAN or public address reaches its 0.0.0.0-bound services as loopback does
  if (cls !== 'loopback' && cls !== 'unspecified' && !policy.allowLoopback && isOwnAddress(ip)) return OWN
  if (cls === 'public') return undefined
  if ((cls === 'private' || cls === 'unique-local') && policy.allowPrivateNetwork) return undefined
  return DESCRIBE[cls]
}

const HINT =
  'web_fetch only reaches public internet addresses; loopback, private-network and link-local addresses are blocked ' +
  '(tools.webFetch.allowLoopback / allowPrivateNetwork in loopdesk.json opt in)'

/** `localhost` and `*.localhost` always mean this machine (RFC 6761), whatever DNS says. */
export function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '')
  return h === 'localhost' || h.endsWith('.localhost') || h === 'localhost.localdomain'
}

/** The host name did not resolve here (behind a proxy, the proxy may still resolve it). */
export class UnresolvedHostError extends Error {}

/**
 * Resolves the URL's host and checks every address it resolves to. Returns the one address the request
 * must connect to. Throws BlockedAddressError naming the URL and the offending address.
 */
export async function resolvePinned(url: URL, policy: NetPolicy): Promise<PinnedAddress> {
  const raw = url.hostname
  const host = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw
  const refuse = (why: string): never => {
    throw new BlockedAddressError(`web_fetch refused ${url.href}: ${why}. ${HINT}`)
  }
  if (net.isIP(host)) {
    const why = blockReason(host, policy)
    if (why) refuse(`${host} is ${why}`)
    return { address: host, family: net.isIPv6(host) ? 6 : 4 }
  }
  if (isLocalhostName(host) && !policy.allowLoopback) refuse(`"${host}" is this machine`)
  let answers: dns.LookupAddress[]
  try {
    // through the module object (not a destructured import) so tests can substitute the resolver
    answers = await dns.promises.lookup(host, { all: true, verbatim: true })
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new UnresolvedHostError(`web_fetch could not resolve ${host}${code ? ` (${code})` : ''}`, { cause: err })
  }
  if (answers.length === 0) throw new UnresolvedHostError(`web_fetch could not resolve ${host}: no addresses`)
  // every answer must be allowed: a name that also points inside the network is not trusted at all
  for (const a of answers) {
    const why = blockReason(a.address, policy)
    if (why) refuse(`${host} resolves to ${a.address}, ${why}`)
  }
  const first = answers[0]
  return { address: first.address, family: first.family === 6 ? 6 : 4 }
}

/** A `lookup` for http(s).request that always answers with the already-checked address. */
export function pinnedLookup(pin: PinnedAddress): net.LookupFunction {
  return ((_hostname: string, options: dns.LookupOptions, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [{ address: pin.address, family: pin.family }])
    else cb(null, pin.address, pin.family)
  }) as unknown as net.LookupFunction
}
