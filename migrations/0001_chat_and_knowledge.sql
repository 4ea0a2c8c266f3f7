CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`chatbot_id` text NOT NULL,
	`session_id` text NOT NULL,
	`user_name` text,
	`user_email` text,
	`status` text DEFAULT 'active' NOT NULL,
	`rating` integer,
	`message_count` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_chatbot_session` ON `conversations` (`chatbot_id`,`session_id`);--> statement-breakpoint
CREATE INDEX `conversations_chatbot_updated` ON `conversations` (`chatbot_id`,`updated_at`);--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`chatbot_id` text NOT NULL,
	`role` text NOT NULL,
	`content` text NOT NULL,
	`timestamp` text NOT NULL,
	`response_time_ms` integer,
	`sources_json` text,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `messages_conversation_time` ON `messages` (`conversation_id`,`timestamp`);--> statement-breakpoint
CREATE INDEX `messages_chatbot_time` ON `messages` (`chatbot_id`,`timestamp`);--> statement-breakpoint
CREATE TABLE `chunks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`chatbot_id` text NOT NULL,
	`source_id` text NOT NULL,
	`ordinal` integer NOT NULL,
	`content` text NOT NULL,
	`token_count` integer NOT NULL,
	`embedded_with` text,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `chunks_source` ON `chunks` (`source_id`);--> statement-breakpoint
CREATE INDEX `chunks_chatbot_unembedded` ON `chunks` (`chatbot_id`,`embedded_with`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` text PRIMARY KEY NOT NULL,
	`chatbot_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`url` text,
	`file_type` text,
	`file_size` integer,
	`status` text NOT NULL,
	`error_message` text,
	`progress` real DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sources_chatbot_created` ON `sources` (`chatbot_id`,`created_at`);