import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { PermissionFlagsBits, PermissionsBitField } from 'discord.js';
import { describe, expect, it } from 'vitest';
import {
  DISCORD_CALLS,
  DISCORD_INTENTS,
  DISCORD_PERMISSIONS,
  discordInviteUrl,
  discordPermissions,
} from '../../src/setup/discord-invite.js';

const DISCORD_SOURCE = path.resolve(import.meta.dirname, '../../src/surfaces/channels/discord');
const CLIENT = path.join(DISCORD_SOURCE, 'discord-client.ts');
/** REST routes, and the discord.js methods of DISCORD_CALLS that call one. */
const CALL = /Routes\.(\w+)\(|\.(messages)\s*\.\s*(fetch)\(|\.(fetchStarterMessage)\(/g;
/** Discord's privileged intents (discord.com/developers/docs/events/gateway#privileged-intents). */
const PRIVILEGED = ['GuildMembers', 'GuildPresences', 'MessageContent'];

describe('switchboard discord invite', () => {
  it("names each permission with discord.js's bit for it", () => {
    for (const permission of DISCORD_PERMISSIONS)
      expect(permission.bit, permission.name).toBe(
        PermissionFlagsBits[permission.name as keyof typeof PermissionFlagsBits],
      );
  });

  it('asks for the permissions of every REST call the Discord adapter makes', async () => {
    const files = (await readdir(DISCORD_SOURCE, { recursive: true })).filter((file) => file.endsWith('.ts'));
    const found = new Map<string, string>();
    for (const file of files) {
      const text = await readFile(path.join(DISCORD_SOURCE, file), 'utf8');
      for (const match of text.matchAll(CALL))
        found.set(match[1] ?? (match[2] ? `${match[2]}.${match[3]}` : (match[4] ?? '')), file);
    }
    expect([...found.keys()]).toEqual(expect.arrayContaining(['channelMessages', 'channelTyping']));
    const granted = DISCORD_PERMISSIONS.map((permission) => permission.name);
    for (const [call, file] of found) {
      expect(DISCORD_CALLS[call], `${call} (in ${file}) is not in DISCORD_CALLS`).toBeDefined();
      for (const permission of DISCORD_CALLS[call] ?? [])
        expect(granted, `${call} needs ${permission}`).toContain(permission);
    }
    // Every permission asked for is needed by some call.
    expect(granted.filter((name) => !Object.values(DISCORD_CALLS).flat().includes(name))).toEqual([]);
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
