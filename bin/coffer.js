#!/usr/bin/env node
// Coffer runs its TypeScript sources directly through tsx's loader, so a fresh
// clone needs no build step before `npm start`.
import process from "node:process";
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli/main.ts");
await main(process.argv.slice(2));
