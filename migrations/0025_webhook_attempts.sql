CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`attempted_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_user_at` ON `webhook_attempts` (`user_id`,`attempted_at`);