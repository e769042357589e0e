CREATE TABLE "post_revisions" (
	"id" text PRIMARY KEY NOT NULL,
	"post_id" text NOT NULL,
	"number" integer NOT NULL,
	"site" text NOT NULL,
	"account_id" text NOT NULL,
	"key_id" text,
	"status" text NOT NULL,
	"title" text,
	"body" text NOT NULL,
	"topics" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"fields" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"country" text,
	"state" text,
	"city" text,
	"visible_until" timestamp with time zone,
	"starts_at" timestamp with time zone,
	"fingerprint" text,
	"charged" bigint NOT NULL,
	"post_price" bigint NOT NULL,
	"prefilter" jsonb,
	"moderation" jsonb,
	"rejection_category" text,
	"rejection_reason" text,
	"refunded" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"published_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "revision" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "updated_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "post_revisions" ADD CONSTRAINT "post_revisions_post_id_posts_id_fk" FOREIGN KEY ("post_id") REFERENCES "public"."posts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "post_revisions" ADD CONSTRAINT "post_revisions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "post_revisions_number_idx" ON "post_revisions" USING btree ("post_id","number");--> statement-breakpoint
CREATE UNIQUE INDEX "post_revisions_one_pending_idx" ON "post_revisions" USING btree ("post_id") WHERE "post_revisions"."status" in ('queued', 'review');--> statement-breakpoint
CREATE INDEX "post_revisions_status_idx" ON "post_revisions" USING btree ("status","created_at");