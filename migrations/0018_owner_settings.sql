CREATE TABLE `app_settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value_encrypted` text NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text
);
--> statement-breakpoint
ALTER TABLE `chatbots` ADD `lead_form_timing` text DEFAULT 'before_chat' NOT NULL;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `lead_form_after_messages` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `lead_consent_text` text;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `privacy_policy_url` text;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `language` text DEFAULT 'auto' NOT NULL;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `widget_texts` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `unavailable_message` text;