CREATE TABLE `channel_chats` (
	`id` text PRIMARY KEY NOT NULL,
	`connection_id` text NOT NULL,
	`chat_id` text NOT NULL,
	`session_id` text NOT NULL,
	`conversation_id` text,
	`answers` integer DEFAULT 0 NOT NULL,
	`contact_asked` integer DEFAULT false NOT NULL,
	`last_inbound_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`connection_id`) REFERENCES `channel_connections`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channel_chats_connection_chat` ON `channel_chats` (`connection_id`,`chat_id`);--> statement-breakpoint
CREATE INDEX `channel_chats_conversation` ON `channel_chats` (`conversation_id`) WHERE "channel_chats"."conversation_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `channel_connections` (
	`id` text PRIMARY KEY NOT NULL,
	`chatbot_id` text NOT NULL,
	`channel` text NOT NULL,
	`credential` text NOT NULL,
	`account_hash` text NOT NULL,
	`account_name` text NOT NULL,
	`display_name` text NOT NULL,
	`mode` text NOT NULL,
	`webhook_secret_hash` text,
	`state` text NOT NULL,
	`error` text,
	`update_offset` integer,
	`last_message_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channel_connections_chatbot_channel` ON `channel_connections` (`chatbot_id`,`channel`);--> statement-breakpoint
CREATE UNIQUE INDEX `channel_connections_account` ON `channel_connections` (`account_hash`);--> statement-breakpoint
CREATE TABLE `channel_inbound` (
	`id` text PRIMARY KEY NOT NULL,
	`connection_id` text NOT NULL,
	`external_id` text NOT NULL,
	`chat_id` text NOT NULL,
	`user_id` text NOT NULL,
	`user_name` text NOT NULL,
	`text` text,
	`contact_phone` text,
	`state` text NOT NULL,
	`user_message_id` text,
	`error` text,
	`received_at` text NOT NULL,
	FOREIGN KEY (`connection_id`) REFERENCES `channel_connections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channel_inbound_external` ON `channel_inbound` (`connection_id`,`external_id`);--> statement-breakpoint
CREATE TABLE `channel_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`connection_id` text NOT NULL,
	`chat_id` text NOT NULL,
	`message_id` text,
	`text` text NOT NULL,
	`ask_contact` integer DEFAULT false NOT NULL,
	`state` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` text NOT NULL,
	`sent_at` text,
	FOREIGN KEY (`connection_id`) REFERENCES `channel_connections`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `channel_outbox_message` ON `channel_outbox` (`message_id`) WHERE "channel_outbox"."message_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `channel_outbox_queued` ON `channel_outbox` (`connection_id`,`state`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `channel` text DEFAULT 'web' NOT NULL;