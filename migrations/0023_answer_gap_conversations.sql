CREATE TABLE `answer_gap_conversations` (
	`gap_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	PRIMARY KEY(`gap_id`, `conversation_id`),
	FOREIGN KEY (`gap_id`) REFERENCES `answer_gaps`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `answer_gap_conversations_conversation` ON `answer_gap_conversations` (`conversation_id`);--> statement-breakpoint
-- gaps recorded before: the one conversation each names (their counts stay as they were)
INSERT INTO `answer_gap_conversations` (`gap_id`, `conversation_id`) SELECT `id`, `conversation_id` FROM `answer_gaps` WHERE `conversation_id` IS NOT NULL;
