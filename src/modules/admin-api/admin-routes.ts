import type { App } from "../../lib/http/types.ts";
import { registerAdminCustomerRoutes } from "../customers/customers-routes.ts";
import type { CustomerService } from "../customers/customers-service.ts";
import { registerAdminOrderRoutes } from "../orders/orders-routes.ts";
import type { OrderService } from "../orders/orders-service.ts";
import { registerAdminProductRoutes } from "../products/products-routes.ts";
import type { ProductService } from "../products/products-service.ts";

/**
 * The Admin API (`/api/v1/apps/api`): the store's data as an installed app sees it. Register inside
 * its own scope, with the Admin API guard installed on it (installFamilyGuard).
 */
export function registerAdminRoutes(
  app: App,
  services: { products: ProductService; orders: OrderService; customers: CustomerService },
) {
  registerAdminProductRoutes(app, services.products);
  registerAdminOrderRoutes(app, services.orders);
  registerAdminCustomerRoutes(app, services.customers);
}
