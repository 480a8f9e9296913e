// Run by `npm run build` after tsc: writes the config validator's generated code (ajv standalone)
// beside dist/base/config/config-validator.js, which loads it at start instead of compiling the schema.
import { writeFile } from 'node:fs/promises';
// Not in the config index, so the gateway never loads ajv's standalone generator.
import { configValidatorSource } from '../dist/base/config/config-validator-source.js';
import { STANDALONE_CONFIG_VALIDATOR } from '../dist/base/config/index.js';

await writeFile(
  new URL(`../dist/base/config/${STANDALONE_CONFIG_VALIDATOR}`, import.meta.url),
  configValidatorSource(),
);
