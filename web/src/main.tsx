import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createBrowserRouter, Navigate, RouterProvider } from "react-router";
import { ApiError } from "./api/client.ts";
import { Shell } from "./components/shell.tsx";
import { Feedback } from "./components/ui.tsx";
import { AccountPage } from "./pages/account.tsx";
import { AppDetailPage, AppsPage } from "./pages/apps.tsx";
import { LoginPage, SignupPage } from "./pages/auth.tsx";
import { ConsentPage } from "./pages/consent.tsx";
import { CustomerPage, CustomersPage } from "./pages/customers.tsx";
import { ApiKeysPage, InstalledAppsPage } from "./pages/integrations.tsx";
import { NotFoundPage } from "./pages/not-found.tsx";
import { NewOrderPage } from "./pages/order-new.tsx";
import { OrderPage, OrdersPage } from "./pages/orders.tsx";
import { OverviewPage } from "./pages/overview.tsx";
import { ProductsPage } from "./pages/products.tsx";
import { SettingsPage } from "./pages/settings.tsx";
import { StoresPage } from "./pages/stores.tsx";
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

const router = createBrowserRouter([
  { path: "/login", element: <LoginPage /> },
  { path: "/signup", element: <SignupPage /> },
  { path: "/oauth/consent", element: <ConsentPage /> },
  {
    element: <Shell />,
    children: [
      { path: "/", element: <StoresPage /> },
      { path: "/stores/:slug", element: <OverviewPage /> },
      { path: "/stores/:slug/products", element: <ProductsPage /> },
      { path: "/stores/:slug/orders", element: <OrdersPage /> },
      { path: "/stores/:slug/orders/new", element: <NewOrderPage /> },
      { path: "/stores/:slug/orders/:id", element: <OrderPage /> },
      { path: "/stores/:slug/customers", element: <CustomersPage /> },
      { path: "/stores/:slug/customers/:id", element: <CustomerPage /> },
      { path: "/stores/:slug/apps", element: <InstalledAppsPage /> },
      { path: "/stores/:slug/api-keys", element: <ApiKeysPage /> },
      { path: "/stores/:slug/settings", element: <SettingsPage /> },
      { path: "/apps", element: <AppsPage /> },
      { path: "/apps/:clientId", element: <AppDetailPage /> },
      { path: "/account", element: <AccountPage /> },
      { path: "/stores", element: <Navigate to="/" replace /> },
      { path: "*", element: <NotFoundPage /> },
    ],
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
