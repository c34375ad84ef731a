// What a shared gateway token may be — one rule for the token file, `--token`, and `gateway.auth.token` in the
// config: a config.patch with another value is refused, since the gateway would only log it and keep its token.
export const GATEWAY_TOKEN_RULE = '16–512 printable ASCII characters without spaces'
const TOKEN_RE = /^[\x21-\x7e]{16,512}$/

export const isValidGatewayToken = (token: string): boolean => TOKEN_RE.test(token)
