ALTER TABLE `conversations` ADD `owner_notified_at` text;--> statement-breakpoint
CREATE INDEX `conversations_chatbot_notified` ON `conversations` (`chatbot_id`,`owner_notified_at`) WHERE "conversations"."owner_notified_at" IS NOT NULL;--> statement-breakpoint
-- conversations escalated before: their e-mail went out then (the latest escalation stands for it)
UPDATE `conversations` SET `owner_notified_at` = `escalated_at` WHERE `escalated_at` IS NOT NULL;
