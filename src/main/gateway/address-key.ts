// Which machine a peer is, for the per-address budgets (wrong-token backoff, pending handshakes).
// Linux routes all of 127.0.0.0/8 to this machine and lets any local process pick its source address there,
// so keyed by the raw address each of 16M loopback addresses had its own budget: ten guesses per address
// and no lock ever held (measured: 100 tokens judged in 0.7 s from ten addresses, instead of ten).

/** 127.0.0.0/8 or ::1, also written as IPv4-mapped IPv6 (::ffff:127.x.y.z) */
export function isLoopbackAddress(addr: string | undefined): boolean {
  if (!addr) return false
  const a = unmapped(addr)
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a)
}

/** The key a peer's address is counted under: every loopback address is one, an IPv4-mapped one its IPv4 form. */
export function addressKey(addr: string): string {
  return isLoopbackAddress(addr) ? 'loopback' : unmapped(addr)
}

const unmapped = (addr: string) => (addr.toLowerCase().startsWith('::ffff:') && addr.includes('.') ? addr.slice(7) : addr)
