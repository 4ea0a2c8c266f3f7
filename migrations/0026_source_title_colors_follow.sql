ALTER TABLE `chatbots` ADD `secondary_follows_primary` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `chatbots` ADD `accent_follows_primary` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `title` text;--> statement-breakpoint
-- An agent from before whose secondary or accent colour is still the default pink never chose it:
-- it follows the primary from now on (issue 31 point 6), so the default purple keeps its pink and
-- any other primary gets its own colour in place of the pink.
UPDATE `chatbots` SET `secondary_follows_primary` = (lower(`secondary_color`) = '#ec4899'), `accent_follows_primary` = (lower(`accent_color`) = '#ec4899');--> statement-breakpoint
UPDATE `chatbots` SET `secondary_color` = `primary_color` WHERE `secondary_follows_primary` = 1 AND lower(`primary_color`) <> '#7c3aed';--> statement-breakpoint
UPDATE `chatbots` SET `accent_color` = `primary_color` WHERE `accent_follows_primary` = 1 AND lower(`primary_color`) <> '#7c3aed';
