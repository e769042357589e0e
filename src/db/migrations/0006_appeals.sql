CREATE TABLE "appeals" (
	"id" text PRIMARY KEY NOT NULL,
	"decision_id" text NOT NULL,
	"post_id" text NOT NULL,
	"account_id" text NOT NULL,
	"statement" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"reason" text,
	"decided_by" text,
	"created_at" timestamp with time zone NOT NULL,
	"decided_at" timestamp with time zone,
	"refunded" bigint DEFAULT 0 NOT NULL,
	"strike_removed" boolean DEFAULT false NOT NULL,
	"ban_lifted" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "decisions" (
	"id" text PRIMARY KEY NOT NULL,
	"post_id" text NOT NULL,
	"account_id" text NOT NULL,
	"outcome" text NOT NULL,
	"category" text,
	"automated" boolean NOT NULL,
	"waited_ms" bigint NOT NULL,
	"strike" boolean DEFAULT false NOT NULL,
	"banned" boolean DEFAULT false NOT NULL,
	"decided_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "posts" ADD COLUMN "statement" jsonb;--> statement-breakpoint
ALTER TABLE "reports" ADD COLUMN "resolution_reason" text;--> statement-breakpoint
CREATE UNIQUE INDEX "appeals_decision_idx" ON "appeals" USING btree ("decision_id");--> statement-breakpoint
CREATE INDEX "appeals_status_idx" ON "appeals" USING btree ("status","created_at");--> statement-breakpoint
CREATE INDEX "appeals_account_idx" ON "appeals" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "decisions_post_idx" ON "decisions" USING btree ("post_id");--> statement-breakpoint
CREATE INDEX "decisions_decided_idx" ON "decisions" USING btree ("decided_at");--> statement-breakpoint
CREATE INDEX "reports_post_idx" ON "reports" USING btree ("post_id");