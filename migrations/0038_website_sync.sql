CREATE TABLE `source_pages` (
	`source_id` text NOT NULL,
	`page_key` text NOT NULL,
	`page_url` text NOT NULL,
	`etag` text,
	`last_modified` text,
	`body_hash` text NOT NULL,
	`text_hash` text NOT NULL,
	`links` text DEFAULT '[]' NOT NULL,
	`fetched_at` text NOT NULL,
	PRIMARY KEY(`source_id`, `page_key`),
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `source_syncs` (
	`id` text PRIMARY KEY NOT NULL,
	`source_id` text NOT NULL,
	`trigger` text NOT NULL,
	`status` text NOT NULL,
	`error` text,
	`added` integer DEFAULT 0 NOT NULL,
	`changed` integer DEFAULT 0 NOT NULL,
	`removed` integer DEFAULT 0 NOT NULL,
	`unchanged` integer DEFAULT 0 NOT NULL,
	`details` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `source_syncs_source` ON `source_syncs` (`source_id`,`finished_at`);--> statement-breakpoint
ALTER TABLE `sources` ADD `sync_interval` text DEFAULT 'off' NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `last_synced_at` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `next_sync_at` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `last_sync` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `check_reason` text;