CREATE TABLE "recharges" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"amount" bigint NOT NULL,
	"status" text NOT NULL,
	"provider_ref" text,
	"failure_reason" text,
	"refunded" bigint DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "stripe_events" (
	"id" text PRIMARY KEY NOT NULL,
	"type" text NOT NULL,
	"received_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "card_brand" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "card_ref" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "provider_customer" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "auto_recharge_disabled_reason" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "deletion_requested_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "low_balance_notice_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "top_ups" ADD COLUMN "refunded" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "recharges" ADD CONSTRAINT "recharges_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "recharges_one_pending_idx" ON "recharges" USING btree ("account_id") WHERE "recharges"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "recharges_account_idx" ON "recharges" USING btree ("account_id","created_at");