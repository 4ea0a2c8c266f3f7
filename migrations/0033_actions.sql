CREATE TABLE `action_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`action_id` text,
	`action_name` text NOT NULL,
	`action_type` text NOT NULL,
	`chatbot_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`user_id` text NOT NULL,
	`inputs` text NOT NULL,
	`status` text NOT NULL,
	`outcome` text,
	`http_status` integer,
	`result` text,
	`confirmed_at` text,
	`created_at` text NOT NULL,
	`finished_at` text,
	`duration_ms` integer,
	FOREIGN KEY (`action_id`) REFERENCES `actions`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `action_runs_conversation` ON `action_runs` (`conversation_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `action_runs_chatbot_created` ON `action_runs` (`chatbot_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `action_runs_user_created` ON `action_runs` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `action_runs_awaiting` ON `action_runs` (`created_at`) WHERE "action_runs"."status" = 'awaiting_confirmation';--> statement-breakpoint
CREATE TABLE `actions` (
	`id` text PRIMARY KEY NOT NULL,
	`chatbot_id` text NOT NULL,
	`type` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`url` text,
	`parameters` text DEFAULT '[]' NOT NULL,
	`response_fields` text DEFAULT '[]' NOT NULL,
	`requires_verified` integer DEFAULT false NOT NULL,
	`signing_secret` text NOT NULL,
	`calendar_url` text,
	`slot_minutes` integer DEFAULT 30 NOT NULL,
	`days_ahead` integer DEFAULT 14 NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`chatbot_id`) REFERENCES `chatbots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `actions_chatbot_name` ON `actions` (`chatbot_id`,`name`);