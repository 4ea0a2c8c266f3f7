ALTER TABLE `channel_chats` ADD `reply_thread` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `from_address` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `in_reply_to` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `references` text;--> statement-breakpoint
ALTER TABLE `mail_outbox` ADD `transport` text;