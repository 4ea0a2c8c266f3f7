CREATE TABLE `chatbots` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`model` text NOT NULL,
	`provider` text NOT NULL,
	`temperature` real NOT NULL,
	`max_tokens` integer NOT NULL,
	`instructions` text NOT NULL,
	`status` text NOT NULL,
	`public_access` integer NOT NULL,
	`messages_count` integer DEFAULT 0 NOT NULL,
	`conversations_count` integer DEFAULT 0 NOT NULL,
	`primary_color` text NOT NULL,
	`secondary_color` text NOT NULL,
	`accent_color` text NOT NULL,
	`welcome_message` text NOT NULL,
	`widget_position` text NOT NULL,
	`widget_theme` text NOT NULL,
	`widget_size` text NOT NULL,
	`lead_capture_enabled` integer NOT NULL,
	`email_alerts_enabled` integer NOT NULL,
	`email_alert_address` text,
	`rate_limit_enabled` integer NOT NULL,
	`messages_per_hour` integer NOT NULL,
	`logo_url` text,
	`avatar_url` text,
	`font_family` text NOT NULL,
	`font_size` integer NOT NULL,
	`bubble_style` text NOT NULL,
	`auto_expand` integer NOT NULL,
	`powered_by_text` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `chatbots_user_created` ON `chatbots` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`last_used_at` text NOT NULL,
	`created_ip` text,
	`user_agent` text,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_user_id` ON `sessions` (`user_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`role` text DEFAULT 'user' NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`plan_id` text NOT NULL,
	`plan_expires_at` text,
	`created_at` text NOT NULL,
	`last_login` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);