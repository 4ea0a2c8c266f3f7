CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`subject_id` text NOT NULL,
	`payload` text DEFAULT '{}' NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`run_after` text NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_status_run_after` ON `jobs` (`status`,`run_after`);--> statement-breakpoint
CREATE INDEX `jobs_subject` ON `jobs` (`subject_id`);--> statement-breakpoint
ALTER TABLE `sources` ADD `pages_done` integer;--> statement-breakpoint
ALTER TABLE `sources` ADD `pages_found` integer;--> statement-breakpoint
ALTER TABLE `sources` ADD `stored_path` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `options` text;