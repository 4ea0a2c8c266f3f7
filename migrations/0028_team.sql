CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` text NOT NULL,
	`actor_user_id` text NOT NULL,
	`method` text NOT NULL,
	`route` text NOT NULL,
	`params` text NOT NULL,
	`status` integer NOT NULL,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `audit_log_account_at` ON `audit_log` (`account_id`,`at`);--> statement-breakpoint
CREATE TABLE `team_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`token_hash` text NOT NULL,
	`invited_by` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_invitations_token` ON `team_invitations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `team_invitations_account` ON `team_invitations` (`account_id`);--> statement-breakpoint
ALTER TABLE `users` ADD `account_id` text;--> statement-breakpoint
ALTER TABLE `users` ADD `team_role` text DEFAULT 'owner' NOT NULL;--> statement-breakpoint
CREATE INDEX `users_account` ON `users` (`account_id`);