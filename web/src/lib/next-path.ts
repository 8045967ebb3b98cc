/**
 * Where to go after signing in: the page `next` names if it is one of this origin's, else "/".
 *
 * Decided the way the browser will read it: parsed with URL against the origin, kept only when it
 * stays on the origin. A prefix check is not enough: URL parsers read `\` as `/` and drop tabs
 * and newlines, so `/\evil.example` and `/<TAB>/evil.example` (`next=/%09/evil.example` once the
 * query is decoded) both mean `//evil.example`, another site.
 */
export function sameOriginPath(next: string | null, origin: string): string {
  // Only a path: never a scheme or a host of its own, even one naming this origin.
  if (!next?.startsWith("/")) return "/";
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return "/";
  }
  if (url.origin !== origin) return "/";
  return `${url.pathname}${url.search}${url.hash}`;
}
