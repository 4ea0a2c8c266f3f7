CREATE TABLE `account_leads` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`contact` text NOT NULL,
	`status` text NOT NULL,
	`notes` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `account_leads_user_created` ON `account_leads` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `mail_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`to_address` text NOT NULL,
	`subject` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	`sent_at` text
);
--> statement-breakpoint
CREATE INDEX `mail_outbox_status` ON `mail_outbox` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `widget_leads` (
	`id` text PRIMARY KEY NOT NULL,
	`chatbot_id` text NOT NULL,
	`name` text NOT NULL,
	`phone` text NOT NULL,
	`session_id` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `widget_leads_chatbot_created` ON `widget_leads` (`chatbot_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `widget_leads_dedup` ON `widget_leads` (`chatbot_id`,`name`,`phone`,`created_at`);--> statement-breakpoint
CREATE INDEX `conversations_chatbot_created` ON `conversations` (`chatbot_id`,`created_at`);