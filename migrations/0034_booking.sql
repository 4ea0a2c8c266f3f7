ALTER TABLE `mail_outbox` ADD `ics` text;--> statement-breakpoint
ALTER TABLE `widget_leads` ADD `email` text;