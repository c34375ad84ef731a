// Browser mode: the gateway no longer accepts this page's access token (it was rotated) nor the device
// token the page kept. Reconnecting cannot help, so say what to do instead of spinning.
export function TokenChangedScreen({ detail }: { detail?: string }) {
  return (
    <div className="fatal" role="alert" aria-labelledby="token-changed-title">
      <h1 id="token-changed-title">The gateway token changed</h1>
      <p>This page's access token is no longer accepted by the Loopdesk gateway.</p>
      <p>
        Open the new link printed by <code>loopdesk dashboard</code> (it carries the new token).
      </p>
      {detail && <p className="muted small">Gateway said: {detail}</p>}
    </div>
  )
}
