import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PermissionFlagsBits, PermissionsBitField } from 'discord.js';
import { describe, expect, it } from 'vitest';
import {
  DISCORD_INTENTS,
  DISCORD_PERMISSIONS,
  discordInviteUrl,
  discordPermissions,
} from '../../src/cli/discord-invite.js';

const CLIENT = path.resolve(import.meta.dirname, '../../src/channels/discord/discord-client.ts');
/** Discord's privileged intents (discord.com/developers/docs/events/gateway#privileged-intents). */
const PRIVILEGED = ['GuildMembers', 'GuildPresences', 'MessageContent'];

describe('switchboard discord invite', () => {
  it("names each permission with discord.js's bit for it", () => {
    for (const permission of DISCORD_PERMISSIONS)
      expect(permission.bit, permission.name).toBe(
        PermissionFlagsBits[permission.name as keyof typeof PermissionFlagsBits],
      );
  });

  it('lists exactly the intents the Discord client asks for, privileged ones marked', async () => {
    const source = await readFile(CLIENT, 'utf8');
    const asked = [...source.matchAll(/GatewayIntentBits\.(\w+)/g)].map((match) => match[1]);
    expect(asked.length).toBeGreaterThan(0);
    expect(DISCORD_INTENTS.map((intent) => intent.name).sort()).toEqual([...new Set(asked)].sort());
    for (const intent of DISCORD_INTENTS)
      expect(intent.privileged, intent.name).toBe(PRIVILEGED.includes(intent.name));
  });

  it('invites the bot with slash commands and every permission, and can preselect a server', () => {
    const url = new URL(discordInviteUrl('123456789012345678', '876543210987654321'));
    expect(url.origin + url.pathname).toBe('https://discord.com/oauth2/authorize');
    expect(url.searchParams.get('client_id')).toBe('123456789012345678');
    expect(url.searchParams.get('scope')).toBe('bot applications.commands');
    expect(url.searchParams.get('guild_id')).toBe('876543210987654321');
    const granted = new PermissionsBitField(BigInt(url.searchParams.get('permissions') ?? '0'));
    expect(granted.toArray().sort()).toEqual(DISCORD_PERMISSIONS.map((permission) => permission.name).sort());
    expect(granted.bitfield).toBe(discordPermissions());
    expect(new URL(discordInviteUrl('123456789012345678')).searchParams.has('guild_id')).toBe(false);
  });
});
