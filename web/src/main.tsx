import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter, RouterProvider } from "react-router";
import { ApiError } from "./api/client.ts";
import { Shell } from "./components/shell.tsx";
import { Feedback } from "./components/ui.tsx";
import { PAGES } from "./page-registry.ts";
import "./styles.css";

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; a network failure may.
      retry: (count, error) => count < 2 && (!(error instanceof ApiError) || error.status === 0),
      refetchOnWindowFocus: false,
    },
  },
});

// Links from before the dashboard had paths (#/stores/x/orders) still lead to the same page.
if (location.hash.startsWith("#/")) history.replaceState(null, "", location.hash.slice(1));

// Every page declares its own path (web/src/pages/*.tsx, lib/page.ts): the signed-in ones inside
// the shell (sidebar, sign-in redirect), the others on their own.
const router = createBrowserRouter([
  ...PAGES.filter((page) => page.bare).map(({ path, element }) => ({ path, element })),
  {
    element: <Shell />,
    children: PAGES.filter((page) => !page.bare).map(({ path, element }) => ({ path, element })),
  },
]);

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Feedback>
        <RouterProvider router={router} />
      </Feedback>
    </QueryClientProvider>
  </StrictMode>,
);
