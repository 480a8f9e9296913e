#!/usr/bin/env node
import { holdYoungGeneration, runCli } from './cli/index.js';

// Before a command's modules load (cli/index.ts imports each when it runs): see young-generation.ts.
holdYoungGeneration();
runCli(process.argv).catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
