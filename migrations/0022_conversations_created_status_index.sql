DROP INDEX `conversations_chatbot_created`;--> statement-breakpoint
CREATE INDEX `conversations_chatbot_created_status` ON `conversations` (`chatbot_id`,`created_at`,`status`);