import type { ApiKeyScope } from "../db/entities/index.js";
import { validation } from "../errors/coffer-error.js";

import { LOGIN_ROLES } from "../../common/enums.js";
export { LOGIN_ROLES };
export type LoginRole = (typeof LOGIN_ROLES)[number];

/** What a console session may do: admin and editor write, viewer reads. Admin alone manages access (admin_only). */
export const SCOPE_OF_ROLE: Record<LoginRole, ApiKeyScope> = {
  admin: "full_access",
  editor: "full_access",
  viewer: "read_only",
};

export function parseRole(raw: string | undefined): LoginRole {
  if (!raw || !(LOGIN_ROLES as readonly string[]).includes(raw)) {
    throw validation(`role must be one of ${LOGIN_ROLES.join(", ")}`);
  }
  return raw as LoginRole;
}
