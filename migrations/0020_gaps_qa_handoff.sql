CREATE TABLE `answer_gaps` (
	`id` text PRIMARY KEY NOT NULL,
	`chatbot_id` text NOT NULL,
	`question_key` text NOT NULL,
	`question` text NOT NULL,
	`reasons` text DEFAULT '[]' NOT NULL,
	`count` integer DEFAULT 1 NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`source_id` text,
	`conversation_id` text,
	`first_seen_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `answer_gaps_chatbot_key` ON `answer_gaps` (`chatbot_id`,`question_key`);--> statement-breakpoint
CREATE INDEX `answer_gaps_chatbot_status` ON `answer_gaps` (`chatbot_id`,`status`,`last_seen_at`);--> statement-breakpoint
ALTER TABLE `chatbots` ADD `handoff_wait_s` integer DEFAULT 120 NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `handled_by` text DEFAULT 'agent' NOT NULL;--> statement-breakpoint
ALTER TABLE `conversations` ADD `taken_at` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `from_person` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `qa_question` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `qa_answer` text;