// What the chat keeps in this browser between page loads: the composer's draft (sessionStorage)
// and the thread on screen (localStorage). Both are keyed by the signed-in user, so the next user
// signing in in the same tab sees neither, and signing out forgets them (`forgetChatStorage`).
// An expired sign-in (a 401) keeps them: the same user signing in again gets the draft back.

const PREFIX = 'switchboard.chat.';

/** The sessionStorage key of `user`'s unsent draft. */
export const draftKey = (user: string): string => `${PREFIX}draft.${user}`;

/** The localStorage key of the thread `user` had on screen. */
export const threadKey = (user: string): string => `${PREFIX}thread.${user}`;

/** Removes every chat key (any user's, and the unkeyed ones of earlier versions) from both stores. */
export function forgetChatStorage(): void {
  for (const storage of [sessionStorage, localStorage]) {
    const keys = Array.from({ length: storage.length }, (_, index) => storage.key(index));
    for (const key of keys) if (key?.startsWith(PREFIX)) storage.removeItem(key);
  }
}
