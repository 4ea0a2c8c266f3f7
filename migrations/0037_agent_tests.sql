CREATE TABLE `agent_test_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`chatbot_id` text NOT NULL,
	`trigger` text NOT NULL,
	`with_model` integer NOT NULL,
	`passed` integer NOT NULL,
	`failed` integer NOT NULL,
	`regressions` text DEFAULT '[]' NOT NULL,
	`results` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text NOT NULL,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_test_runs_chatbot_started` ON `agent_test_runs` (`chatbot_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `agent_test_settings` (
	`chatbot_id` text PRIMARY KEY NOT NULL,
	`auto_run_with_model` integer DEFAULT false NOT NULL,
	`auto_run_after` text,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `agent_tests` (
	`id` text PRIMARY KEY NOT NULL,
	`chatbot_id` text NOT NULL,
	`question` text NOT NULL,
	`expected_phrases` text DEFAULT '[]' NOT NULL,
	`expected_source_id` text,
	`expected_source_name` text,
	`origin` text DEFAULT 'manual' NOT NULL,
	`conversation_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `agent_tests_chatbot_created` ON `agent_tests` (`chatbot_id`,`created_at`);