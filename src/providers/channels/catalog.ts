import type { ChannelDefinition } from './contract.js';
import { email } from './email.js';
import { telegram } from './telegram.js';
import { whatsapp } from './whatsapp.js';

/**
 * Every messaging channel besides the website's widget (`web`), in the order lists show them.
 * Adding one is adding its adapter file and naming it here; the channels module, its routes and
 * the admin's Channels tab derive from this list.
 */
export const CHANNELS = [telegram, whatsapp, email] as const;

export type ChannelName = (typeof CHANNELS)[number]['name'];

/** What a conversation's `channel` may say: the widget and share page are `web`. */
export const CONVERSATION_CHANNELS = ['web', ...CHANNELS.map((c) => c.name)] as ['web', ...ChannelName[]];
export type ConversationChannel = (typeof CONVERSATION_CHANNELS)[number];

const byName = new Map<string, ChannelDefinition<ChannelName>>(CHANNELS.map((c) => [c.name, c]));

export function channelDefinition(name: ChannelName): ChannelDefinition<ChannelName> {
  return byName.get(name)!;
}
