ALTER TABLE `sources` ADD `passage_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- sources stored before the column existed: their passages as they are now
UPDATE `sources` SET `passage_bytes` = (SELECT coalesce(sum(length(CAST(`content` AS BLOB))), 0) FROM `chunks` WHERE `chunks`.`source_id` = `sources`.`id`);
