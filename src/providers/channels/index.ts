export { CHANNELS, CONVERSATION_CHANNELS, channelDefinition } from './catalog.js';
export type { ChannelName, ConversationChannel } from './catalog.js';
export { ChannelError } from './contract.js';
export type {
  ChannelClient,
  ChannelDefinition,
  ChannelIdentity,
  Credential,
  InboundMessage,
  UpdateBatch,
} from './contract.js';
export { GRAPH_VERSION } from './whatsapp.js';
