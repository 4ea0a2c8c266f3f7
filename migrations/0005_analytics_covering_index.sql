DROP INDEX `messages_chatbot_time`;--> statement-breakpoint
CREATE INDEX `messages_chatbot_time_stats` ON `messages` (`chatbot_id`,`timestamp`,`role`,`response_time_ms`);