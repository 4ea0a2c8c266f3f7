export { CHANNELS, CONVERSATION_CHANNELS, channelDefinition } from './catalog.js';
export type { ChannelName, ConversationChannel } from './catalog.js';
export { ChannelError } from './contract.js';
export type {
  ChannelClient,
  ChannelDefinition,
  ChannelIdentity,
  ClientOptions,
  Credential,
  InboundMessage,
  MailThread,
  UpdateBatch,
} from './contract.js';
export { GRAPH_VERSION } from './whatsapp.js';
export { emailChannelMailer } from './email.js';
