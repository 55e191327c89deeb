import { afterAll } from "vitest";
import { sweep } from "../helpers/tracked-processes.js";

// Registered before the file's own hooks, so it runs after them: a file whose teardown left a process
// running (or whose setup failed before it could stop one) fails here, and the process is killed.
afterAll(sweep);
