// Writes config/gateway.schema.json from the TypeBox schema (the single source). A test fails when it is stale.
import { writeFile } from 'node:fs/promises';
import { renderConfigJsonSchema } from '../src/base/config/index.js';

const target = new URL('../config/gateway.schema.json', import.meta.url);
await writeFile(target, renderConfigJsonSchema());
process.stdout.write(`wrote ${target.pathname}\n`);
