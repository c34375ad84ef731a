import type { TokenRefusal } from '../bridge'

// Browser mode: the gateway does not accept this page's access token (none given, a wrong one, or one that
// was rotated) nor a device token the page kept. Reconnecting cannot help, so say what to do instead of spinning.
const TEXT: Record<TokenRefusal, { title: string; why: string }> = {
  missing: {
    title: 'This page needs the gateway token',
    why: 'The page was opened without an access token, so the Loopdesk gateway does not let it in.',
  },
  invalid: {
    title: 'This link’s gateway token is not valid',
    why: 'The Loopdesk gateway does not accept the access token in this link (it may be mistyped, cut short, or from an older link).',
  },
  changed: {
    title: 'The gateway token changed',
    why: "This page's access token is no longer accepted by the Loopdesk gateway.",
  },
}

export function TokenChangedScreen({ detail, reason = 'changed' }: { detail?: string; reason?: TokenRefusal }) {
  const text = TEXT[reason]
  return (
    // the page's one landmark (it replaces the app): without it axe found the content outside any region
    <main className="fatal" aria-labelledby="token-changed-title">
      <div role="alert" aria-labelledby="token-changed-title">
        <h1 id="token-changed-title">{text.title}</h1>
        <p>{text.why}</p>
        <p>
          Open the link printed by <code>loopdesk dashboard</code> (it carries the current token).
        </p>
        {detail && <p className="muted small">Gateway said: {detail}</p>}
      </div>
    </main>
  )
}
