#!/usr/bin/env node
import { holdYoungGeneration } from './cli/young-generation.js';

// Before the CLI's modules load: see young-generation.ts (idle RSS of `switchboard start`).
holdYoungGeneration();
const { runCli } = await import('./cli/index.js');

runCli(process.argv).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
