CREATE TABLE `account_usage` (
	`user_id` text NOT NULL,
	`month` text NOT NULL,
	`user_messages` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `month`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `rate_limit_counters` (
	`key` text NOT NULL,
	`window_s` integer NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`key`, `window_s`)
);
--> statement-breakpoint
ALTER TABLE `chatbots` ADD `allowed_domains` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `daily_message_limit` integer;