ALTER TABLE `sources` ADD `pages_skipped` integer;--> statement-breakpoint
ALTER TABLE `sources` ADD `pages_skipped_by` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `page_cap_hit` integer;