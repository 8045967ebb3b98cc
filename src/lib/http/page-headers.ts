/**
 * The security headers of the pages this service serves to browsers on its own origin: the
 * dashboard and the interactive API docs. The session cookie lives on this origin, so none of them
 * may run script or load styles from elsewhere, be framed by another site (clickjacking), or have
 * a response sniffed into another type. The consent page's error page (oauth/consent-routes.ts)
 * is stricter still, with a nonce of its own.
 */

const POLICY = {
  "default-src": ["'self'"],
  // No inline script or style, no eval: both pages load only their own files.
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  // data: for the icons the stylesheets embed.
  "img-src": ["'self'", "data:"],
  "connect-src": ["'self'"],
  "frame-ancestors": ["'none'"],
  "base-uri": ["'none'"],
  "form-action": ["'self'"],
} as const;

export function pageSecurityHeaders(options: { connectTo?: string[] } = {}): Record<string, string> {
  const policy: Record<string, readonly string[]> = {
    ...POLICY,
    "connect-src": [...new Set([...POLICY["connect-src"], ...(options.connectTo ?? [])])],
  };
  return {
    "content-security-policy": Object.entries(policy)
      .map(([directive, sources]) => `${directive} ${sources.join(" ")}`)
      .join("; "),
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    // For browsers without CSP frame-ancestors; the policy says the same.
    "x-frame-options": "DENY",
  };
}
