import type { ApiFamily } from "../../lib/http/api-family.ts";
import type { App } from "../../lib/http/types.ts";
import { registerCustomerRoutes } from "../customers/customers-routes.ts";
import type { CustomerService } from "../customers/customers-service.ts";
import { registerOrderRoutes } from "../orders/orders-routes.ts";
import type { OrderService } from "../orders/orders-service.ts";
import { registerProductRoutes } from "../products/products-routes.ts";
import type { ProductService } from "../products/products-service.ts";

/** The Admin API (`/api/v1/apps/api`): the store's data as an installed app sees it. */
export function registerAdminRoutes(
  app: App,
  family: ApiFamily,
  services: { products: ProductService; orders: OrderService; customers: CustomerService },
) {
  registerProductRoutes(app, family, services.products, { list: true, write: true });
  registerOrderRoutes(app, family, services.orders, { write: false });
  registerCustomerRoutes(app, family, services.customers, { write: false });
}
