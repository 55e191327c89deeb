import type { ToolDef } from "../tool.js";
import { listUsers, whoami } from "./identity.js";

export const allTools: ToolDef[] = [whoami, listUsers];
