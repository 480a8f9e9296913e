/**
 * The tools of each built-in toolpack, by name. `core` carries the file tools too, as in Suzumio;
 * with `file` listed as well they are registered once. They are reserved whether or not the toolpack is
 * registered: a local toolpack cannot take them, so registering a built-in later never breaks it.
 */
export const BUILTIN_TOOLPACK_TOOLS = {
  core: [
    'messages.send',
    'coordination.wait_for_signal',
    'completion.submit',
    'file.read',
    'file.write',
    'file.patch',
  ],
  file: ['file.read', 'file.write', 'file.patch'],
  shell: ['shell.exec'],
  web: ['web.fetch'],
} as const;
