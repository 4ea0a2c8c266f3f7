CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`webhook_id` text NOT NULL,
	`event` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_status` integer,
	`last_error` text,
	`created_at` text NOT NULL,
	`delivered_at` text,
	FOREIGN KEY (`webhook_id`) REFERENCES `webhooks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_webhook_created` ON `webhook_deliveries` (`webhook_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`url` text NOT NULL,
	`secret` text NOT NULL,
	`events` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhooks_user` ON `webhooks` (`user_id`);--> statement-breakpoint
ALTER TABLE `chatbots` ADD `starter_questions` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `greeting_message` text;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `greeting_delay_s` integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `auto_resolve_after_h` integer DEFAULT 24;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `escalation_keywords` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `escalated_at` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `resolved_at` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `owner_read_at` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `feedback` integer;