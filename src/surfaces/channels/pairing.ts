/** The keys of `channels.slack` and `channels.discord` that decide pairing. */
export interface PairingSettings {
  pairing?: boolean | undefined;
  dmPolicy: 'allowlist' | 'open' | 'disabled';
  allowFrom: readonly string[];
}

/**
 * Whether a person's direct message that `shouldHear` refused is passed on for a pairing code:
 * `pairing` on, `dmPolicy: allowlist`, a sender `allowFrom` does not list. The router answers it
 * with the code and nothing else (`InboundMessage.unknownSender`). Each platform's
 * `pairingCandidate` first tells a person's direct message from the rest.
 */
export function wantsPairing(settings: PairingSettings, senderId: string): boolean {
  return (
    settings.pairing === true && settings.dmPolicy === 'allowlist' && !settings.allowFrom.includes(senderId)
  );
}
