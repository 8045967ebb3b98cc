import { useState } from "react";
import type { FieldError } from "../api/client.ts";
import { MAX_TAGS, Tag } from "../contract.ts";
import { fieldError } from "../lib/validate.ts";
import { Field } from "./ui.tsx";

/** Tags typed as "wholesale, vip": split at commas, blanks dropped, each once. */
export function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(",")
        .map((t) => t.trim())
        .filter(Boolean),
    ),
  ];
}

/** The contract's rule for each tag, and the count. */
export function tagErrors(field: string, tags: string[]): FieldError[] {
  if (tags.length > MAX_TAGS) return [{ field, message: `at most ${MAX_TAGS} tags` }];
  for (const tag of tags) {
    const message = fieldError(Tag, tag);
    if (message) return [{ field, message: `“${tag}” ${message}` }];
  }
  return [];
}

/** A text box for tags, comma-separated. */
export function TagsField(props: {
  value: string;
  onChange: (text: string) => void;
  error?: string | null;
  label?: string;
}) {
  return (
    <Field
      label={props.label ?? "Tags"}
      hint="Separate tags with commas, e.g. wholesale, vip."
      error={props.error}
    >
      {({ id, describedBy, invalid }) => (
        <input
          id={id}
          value={props.value}
          onChange={(e) => props.onChange(e.target.value)}
          aria-describedby={describedBy}
          aria-invalid={invalid || undefined}
          autoComplete="off"
        />
      )}
    </Field>
  );
}

/** Tags shown as small labels. */
export function TagList({ tags }: { tags: readonly string[] }) {
  if (tags.length === 0) return <span className="muted">None</span>;
  return (
    <ul className="tag-list">
      {tags.map((t) => (
        <li key={t} className="tag">
          {t}
        </li>
      ))}
    </ul>
  );
}

/** The text of a tag list in its box. */
export function useTagsText(initial: readonly string[] = []) {
  return useState(initial.join(", "));
}
