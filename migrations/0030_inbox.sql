CREATE TABLE `conversation_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL,
	`chatbot_id` text NOT NULL,
	`author_user_id` text,
	`author_name` text NOT NULL,
	`content` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `conversation_notes_conversation` ON `conversation_notes` (`conversation_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `conversation_notes_author` ON `conversation_notes` (`author_user_id`) WHERE "conversation_notes"."author_user_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE `saved_replies` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`shortcut` text NOT NULL,
	`content` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `saved_replies_account_shortcut` ON `saved_replies` (`account_id`,`shortcut`);--> statement-breakpoint
ALTER TABLE `users` ADD `display_name` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `assigned_to` text;--> statement-breakpoint
CREATE INDEX `conversations_assigned` ON `conversations` (`assigned_to`) WHERE "conversations"."assigned_to" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `sender_user_id` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `sender_name` text;