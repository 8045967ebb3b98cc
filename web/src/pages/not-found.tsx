import { Link } from "react-router";
import { PageHeader } from "../components/ui.tsx";

export function NotFoundPage() {
  return (
    <>
      <PageHeader title="Page not found" subtitle="There is nothing at this address." />
      <p>
        <Link to="/">Back to your stores</Link>
      </p>
    </>
  );
}
