import { GRANTABLE_SCOPES, type Scope, type StoreScope, scopeLabel } from "../contract.ts";

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
        <label key={s} className="check">
          <input
            type="checkbox"
            checked={props.checked.includes(s)}
            onChange={(e) =>
              props.onChange(e.target.checked ? [...props.checked, s] : props.checked.filter((x) => x !== s))
            }
          />
          <span className="check-text">
            {GRANTABLE_SCOPES[s].label} <code className="small muted">{s}</code>
          </span>
        </label>
      ))}
      {props.error ? <p className="field-error">{props.error}</p> : null}
    </fieldset>
  );
}

/** Granted scopes in the contract's words (the code beside each is for developers: `codes`). */
export function ScopeList({ scopes, codes = false }: { scopes: readonly StoreScope[]; codes?: boolean }) {
  return (
    <ul className="scope-list small">
      {scopes.map((s) => (
        <li key={s}>
          {scopeLabel(s)}
          {codes ? (
            <>
              {" "}
              <code className="muted">{s}</code>
            </>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
