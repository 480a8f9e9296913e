// A child process for the SQLite store's SIGKILL test: writes keys 0, 1, 2, … to the store at
// argv[2], several at a time (so they share commits), and prints each key once its write resolved.
import { createLogger } from '../../src/base/logging/index.js';
import { createStore } from '../../src/records/store/index.js';

const file = process.argv[2] as string;
const store = await createStore({
  url: `sqlite://${file}`,
  stateDir: '.',
  logger: createLogger({ level: 'silent' }).logger,
});
const items = store.namespace<{ n: number; text: string }>('items');
const text = 'x'.repeat(200);
for (let next = 0; ; next += 8) {
  await Promise.all(
    Array.from({ length: 8 }, async (_, offset) => {
      const n = next + offset;
      await items.set(String(n), { n, text });
      process.stdout.write(`${n}\n`);
    }),
  );
}
