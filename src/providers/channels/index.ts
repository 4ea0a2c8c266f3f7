export { CHANNELS, CONVERSATION_CHANNELS, channelDefinition } from './catalog.js';
export type { ChannelName, ConversationChannel } from './catalog.js';
export { ChannelError } from './contract.js';
export type { ChannelClient, ChannelDefinition, ChannelIdentity, InboundMessage, UpdateBatch } from './contract.js';
export { redact } from './telegram.js';
