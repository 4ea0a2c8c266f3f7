ALTER TABLE `chatbots` ADD `office_hours` text;--> statement-breakpoint
ALTER TABLE `users` ADD `availability` text DEFAULT 'online' NOT NULL;