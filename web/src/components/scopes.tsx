import { GRANTABLE_SCOPES, type Scope } from "../contract.ts";

/** Checkboxes of scopes, each with its plain-language label from the contract. */
export function ScopeChecks(props: {
  legend: string;
  hint?: string;
  scopes: readonly Scope[];
  checked: readonly Scope[];
  onChange: (next: Scope[]) => void;
  error?: string | null;
}) {
  return (
    <fieldset className="checks wide" aria-invalid={props.error ? true : undefined}>
      <legend>{props.legend}</legend>
      {props.hint ? <p className="hint">{props.hint}</p> : null}
      {props.scopes.map((s) => (
        <label key={s} className="check-text">
          <input
            type="checkbox"
            checked={props.checked.includes(s)}
            onChange={(e) =>
              props.onChange(e.target.checked ? [...props.checked, s] : props.checked.filter((x) => x !== s))
            }
          />
          <span>
            {GRANTABLE_SCOPES[s].label} <code>{s}</code>
          </span>
        </label>
      ))}
      {props.error ? <p className="field-error">{props.error}</p> : null}
    </fieldset>
  );
}

export function ScopeList({ scopes }: { scopes: readonly string[] }) {
  return (
    <span className="small">
      {scopes.map((s) => (
        <code key={s} className="scope">
          {s}
        </code>
      ))}
    </span>
  );
}
