CREATE TABLE `chatbot_identity` (
	`chatbot_id` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `conversations` ADD `verified` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `visitor_user_id` text;--> statement-breakpoint
CREATE INDEX `conversations_chatbot_visitor` ON `conversations` (`chatbot_id`,`visitor_user_id`) WHERE "conversations"."visitor_user_id" IS NOT NULL;