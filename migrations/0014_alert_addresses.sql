CREATE TABLE `alert_addresses` (
	`user_id` text NOT NULL,
	`address` text NOT NULL,
	`token_hash` text,
	`token_expires_at` text,
	`requested_at` text,
	`confirmed_at` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `address`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alert_addresses_token` ON `alert_addresses` (`token_hash`);--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `user_id` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `kind` text DEFAULT 'lead_alert' NOT NULL;--> statement-breakpoint
CREATE INDEX `mail_outbox_user_kind` ON `mail_outbox` (`user_id`,`kind`,`created_at`);