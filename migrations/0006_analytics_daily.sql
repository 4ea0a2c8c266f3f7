-- Analytics rollup: per agent and UTC day, the number of conversations started and messages sent
-- and the sum/count of assistant response times. Kept in step by triggers inside the same
-- transactions that write conversations and messages, so the figures cannot drift, and a year of
-- trends reads at most 365 rows per agent instead of every message. Owned by the analytics
-- feature (a read model); rows go with their agent (FK cascade).
CREATE TABLE `analytics_daily` (
	`chatbot_id` text NOT NULL REFERENCES `chatbots`(`id`) ON DELETE CASCADE,
	`day` text NOT NULL,
	`conversations` integer DEFAULT 0 NOT NULL,
	`messages` integer DEFAULT 0 NOT NULL,
	`response_ms_sum` integer DEFAULT 0 NOT NULL,
	`response_count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY (`chatbot_id`, `day`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TRIGGER `analytics_daily_message_insert` AFTER INSERT ON `messages` BEGIN
  INSERT INTO analytics_daily (chatbot_id, day, messages, response_ms_sum, response_count)
  VALUES (new.chatbot_id, substr(new.timestamp, 1, 10), 1,
          CASE WHEN new.role = 'assistant' THEN coalesce(new.response_time_ms, 0) ELSE 0 END,
          CASE WHEN new.role = 'assistant' AND new.response_time_ms IS NOT NULL THEN 1 ELSE 0 END)
  ON CONFLICT (chatbot_id, day) DO UPDATE SET
    messages = messages + 1,
    response_ms_sum = response_ms_sum + excluded.response_ms_sum,
    response_count = response_count + excluded.response_count;
END;
--> statement-breakpoint
CREATE TRIGGER `analytics_daily_message_delete` AFTER DELETE ON `messages` BEGIN
  UPDATE analytics_daily SET
    messages = messages - 1,
    response_ms_sum = response_ms_sum - CASE WHEN old.role = 'assistant' THEN coalesce(old.response_time_ms, 0) ELSE 0 END,
    response_count = response_count - CASE WHEN old.role = 'assistant' AND old.response_time_ms IS NOT NULL THEN 1 ELSE 0 END
  WHERE chatbot_id = old.chatbot_id AND day = substr(old.timestamp, 1, 10);
END;
--> statement-breakpoint
CREATE TRIGGER `analytics_daily_message_update` AFTER UPDATE OF `timestamp`, `role`, `response_time_ms`, `chatbot_id` ON `messages` BEGIN
  UPDATE analytics_daily SET
    messages = messages - 1,
    response_ms_sum = response_ms_sum - CASE WHEN old.role = 'assistant' THEN coalesce(old.response_time_ms, 0) ELSE 0 END,
    response_count = response_count - CASE WHEN old.role = 'assistant' AND old.response_time_ms IS NOT NULL THEN 1 ELSE 0 END
  WHERE chatbot_id = old.chatbot_id AND day = substr(old.timestamp, 1, 10);
  INSERT INTO analytics_daily (chatbot_id, day, messages, response_ms_sum, response_count)
  VALUES (new.chatbot_id, substr(new.timestamp, 1, 10), 1,
          CASE WHEN new.role = 'assistant' THEN coalesce(new.response_time_ms, 0) ELSE 0 END,
          CASE WHEN new.role = 'assistant' AND new.response_time_ms IS NOT NULL THEN 1 ELSE 0 END)
  ON CONFLICT (chatbot_id, day) DO UPDATE SET
    messages = messages + 1,
    response_ms_sum = response_ms_sum + excluded.response_ms_sum,
    response_count = response_count + excluded.response_count;
END;
--> statement-breakpoint
CREATE TRIGGER `analytics_daily_conversation_insert` AFTER INSERT ON `conversations` BEGIN
  INSERT INTO analytics_daily (chatbot_id, day, conversations) VALUES (new.chatbot_id, substr(new.created_at, 1, 10), 1)
  ON CONFLICT (chatbot_id, day) DO UPDATE SET conversations = conversations + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `analytics_daily_conversation_delete` AFTER DELETE ON `conversations` BEGIN
  UPDATE analytics_daily SET conversations = conversations - 1
  WHERE chatbot_id = old.chatbot_id AND day = substr(old.created_at, 1, 10);
END;
--> statement-breakpoint
CREATE TRIGGER `analytics_daily_conversation_update` AFTER UPDATE OF `created_at`, `chatbot_id` ON `conversations` BEGIN
  UPDATE analytics_daily SET conversations = conversations - 1
  WHERE chatbot_id = old.chatbot_id AND day = substr(old.created_at, 1, 10);
  INSERT INTO analytics_daily (chatbot_id, day, conversations) VALUES (new.chatbot_id, substr(new.created_at, 1, 10), 1)
  ON CONFLICT (chatbot_id, day) DO UPDATE SET conversations = conversations + 1;
END;
--> statement-breakpoint
-- Backfill from what a database already holds.
INSERT INTO analytics_daily (chatbot_id, day, messages, response_ms_sum, response_count)
SELECT chatbot_id, substr(timestamp, 1, 10), count(*),
       coalesce(sum(CASE WHEN role = 'assistant' THEN response_time_ms END), 0),
       count(CASE WHEN role = 'assistant' THEN response_time_ms END)
  FROM messages GROUP BY chatbot_id, substr(timestamp, 1, 10);
--> statement-breakpoint
INSERT INTO analytics_daily (chatbot_id, day, conversations)
SELECT chatbot_id, substr(created_at, 1, 10), count(*) FROM conversations WHERE true GROUP BY chatbot_id, substr(created_at, 1, 10)
ON CONFLICT (chatbot_id, day) DO UPDATE SET conversations = excluded.conversations;
