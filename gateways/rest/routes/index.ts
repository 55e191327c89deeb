import type { RestRoute } from "../route.js";
import { authRoutes } from "./auth.js";
import { systemRoutes } from "./system.js";
import { userRoutes } from "./users.js";

export const allRoutes: RestRoute[] = [...systemRoutes, ...authRoutes, ...userRoutes];
