// Operator scope names (OpenClaw's), spelled once: the gateway's checks, the runtime's missing-scope errors, the
// window's and the CLI's connect requests all use these, so a check can never test a misspelt literal that no
// connection holds (always false) or that differs from what the clients ask for.
export const SCOPES = {
  read: 'operator.read',
  write: 'operator.write',
  admin: 'operator.admin',
  approvals: 'operator.approvals',
  /** device tokens (device.token.rotate/revoke); admin satisfies it too */
  pairing: 'operator.pairing',
} as const
export type Scope = (typeof SCOPES)[keyof typeof SCOPES]

/** What a full operator client (the window, the CLI) asks for at connect; pairing comes with admin. */
export const FULL_OPERATOR_SCOPES: readonly Scope[] = [SCOPES.admin, SCOPES.read, SCOPES.write, SCOPES.approvals]
