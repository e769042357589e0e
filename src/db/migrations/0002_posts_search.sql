-- Full-text search over title, body and topics of posts (PostgreSQL and PGlite alike).
ALTER TABLE "posts" ADD COLUMN "search" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', coalesce("title", '')), 'A') ||
  setweight(to_tsvector('english', "body"), 'B') ||
  setweight(to_tsvector('english', coalesce("topics"::text, '')), 'A')
) STORED;
--> statement-breakpoint
CREATE INDEX "posts_search_idx" ON "posts" USING gin ("search");
