/**
 * Fails when a scope, a status or an event name is written out as a string literal outside the
 * contract module (src/contracts/), so that every such fact is declared once and referenced
 * everywhere else (`Scope.read_orders`, `OrderStatus.paid`, `EVENT.orderCreated`).
 *
 * What counts: a string literal (or a template without substitutions) whose whole text is one of
 * those names, in value or type position, in TypeScript under src/, bench/ and web/src/. What
 * does not: comments, text inside longer strings (SQL `status = 'pending'`, messages; the
 * migrations' CHECK constraints are compared with the contract by a test), tests (*.test.ts and
 * test/), generated files, and the contract module itself.
 *
 *   npm run check:contracts            exit 1 and one line per literal when any is found
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import {
  DELIVERY_STATUS_NAMES,
  EVENT_NAMES,
  INSTALLATION_STATUS_NAMES,
  ORDER_STATUS_NAMES,
  PRODUCT_STATUS_NAMES,
  STORE_SCOPE_NAMES,
  SUBSCRIPTION_STATUS_NAMES,
} from "../src/contracts/index.ts";

const ROOT = join(import.meta.dirname, "..");
export const SCANNED = ["src", "bench", "web/src"];

/** Each contract name and what it is, for the message. */
export function contractNames(): Map<string, string> {
  const names = new Map<string, string>();
  const add = (list: readonly string[], what: string) => {
    for (const n of list) names.set(n, names.has(n) ? `${names.get(n)}, ${what}` : what);
  };
  add(STORE_SCOPE_NAMES, "scope");
  add(EVENT_NAMES, "event name");
  add(ORDER_STATUS_NAMES, "order status");
  add(PRODUCT_STATUS_NAMES, "product status");
  add(INSTALLATION_STATUS_NAMES, "installation status");
  add(SUBSCRIPTION_STATUS_NAMES, "subscription status");
  add(DELIVERY_STATUS_NAMES, "delivery status");
  return names;
}

export function excluded(path: string): boolean {
  return (
    path.startsWith("src/contracts/") ||
    path.startsWith("test/") ||
    /\.test\.tsx?$/.test(path) ||
    /(^|\/)generated\//.test(path) ||
    path.endsWith(".d.ts")
  );
}

export interface Finding {
  file: string;
  line: number;
  literal: string;
  what: string;
}

/** The contract literals in one file's text. */
export function findLiterals(file: string, text: string, names: Map<string, string>): Finding[] {
  const source = ts.createSourceFile(
    file,
    text,
    ts.ScriptTarget.Latest,
    true,
    file.endsWith("x") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const out: Finding[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
      const what = names.get(node.text);
      // An import path is not a fact of the contract.
      const inImport = ts.isImportDeclaration(node.parent) || ts.isExportDeclaration(node.parent);
      if (what && !inImport) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        out.push({ file, line: line + 1, literal: node.text, what });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function* sourceFiles(dir: string): Generator<string> {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (entry === "node_modules" || entry === "dist" || entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.tsx?$/.test(entry)) yield path;
  }
}

export function check(root = ROOT): Finding[] {
  const names = contractNames();
  const findings: Finding[] = [];
  for (const dir of SCANNED) {
    for (const path of sourceFiles(join(root, dir))) {
      const file = relative(root, path);
      if (!excluded(file)) findings.push(...findLiterals(file, readFileSync(path, "utf8"), names));
    }
  }
  return findings;
}

if (import.meta.main) {
  const findings = check();
  for (const f of findings)
    console.log(
      `${f.file}:${f.line}: "${f.literal}" (${f.what}) is declared in src/contracts/; reference it from there`,
    );
  if (findings.length) {
    console.log(`\n${findings.length} contract literal(s) outside src/contracts/.`);
    process.exit(1);
  }
  console.log("contract literals: none outside src/contracts/");
}
