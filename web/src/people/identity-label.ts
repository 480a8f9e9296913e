// A platform identity's platform as people read it: `slack:U0123` → "Slack".
const PLATFORMS: Readonly<Record<string, string>> = {
  slack: 'Slack',
  discord: 'Discord',
  webchat: 'Web chat',
};

export function platformLabel(identity: string): string {
  const platform = identity.split(':')[0] ?? '';
  return PLATFORMS[platform] ?? platform;
}
