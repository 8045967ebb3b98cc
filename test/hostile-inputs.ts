/**
 * Hostile text a merchant or an app may write (issue 27): markup that runs script if it is ever
 * parsed as HTML, a `javascript:` link, a right-to-left override that turns what follows it around,
 * a word wider than any line, and order-number prefixes that read as paths. Every script payload
 * sets `window.__pwned`, the browser test's sentinel (test/ui/hostile-markup.test.ts); the
 * robustness sweep sends all of them to every string field and query parameter.
 */
export const MARKUP = {
  img: '<img src=x onerror="window.__pwned=1">',
  script: "<script>window.__pwned=1</script>",
  svg: '"><svg onload=window.__pwned=1>',
  js: "javascript:window.__pwned=1//",
  rtl: "\u202Egnp.exe",
} as const;

/** Every markup payload in one text (144 characters). */
export const ALL_MARKUP = Object.values(MARKUP).join(" ");

export const LONG_WORD_LENGTH = 10_000;

/**
 * A word without spaces of `length` characters: a capital W, the widest letter, repeated after
 * `lead` (which keeps words of the same length apart, for fields that must be distinct).
 */
export function longWord(length = LONG_WORD_LENGTH, lead = ""): string {
  return `${lead}${"W".repeat(Math.max(0, length - lead.length))}`.slice(0, length);
}

/** Order-number prefixes that would make a path of the order's name if it were ever put in a URL. */
export const PATH_PREFIXES = ["../..", "/../../admin"] as const;

/** All of the above, as the robustness sweep sends them. */
export const HOSTILE_TEXT: ReadonlyArray<readonly [label: string, text: string]> = [
  ...Object.entries(MARKUP).map(([name, text]) => [`markup ${name}`, text] as const),
  [`${LONG_WORD_LENGTH.toLocaleString("en")}-character word`, longWord()],
  ...PATH_PREFIXES.map((p) => [`path prefix ${p}`, p] as const),
];
