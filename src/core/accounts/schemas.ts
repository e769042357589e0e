import { z } from 'zod';
import { line } from '../validation.js';

export const createAccountBody = z.strictObject({
  name: line('name must be one line: no line breaks, tabs or control characters')
    .trim()
    .min(1, 'name is required')
    .max(100, 'name is at most 100 characters'),
  email: z.email('email must be an e-mail address').max(254),
  accept_terms: z.literal(true, 'accept_terms must be true: read the policy at /v1/policy first'),
});
export type CreateAccountInput = z.infer<typeof createAccountBody>;

export const ownerLink = {
  account_url: z.url().describe('The owner opens this page; it expires after one hour.'),
  account_url_expires_at: z.iso.datetime(),
  for_human: z.literal(true),
};

export const createAccountResponse = z.object({
  id: z.string(),
  api_key: z.string().describe('Shown only here; store it.'),
  ...ownerLink,
});

export const autoRechargeView = z.object({
  enabled: z.boolean(),
  threshold: z.number().int(),
  amount: z.number().int(),
});

export const accountView = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
  status: z.enum(['active', 'banned', 'pending_deletion']),
  balance: z.number().int().describe('micro-dollars'),
  strikes: z.number().int(),
  card_on_file: z.boolean(),
  auto_recharge: autoRechargeView,
  ...ownerLink,
});
export type AccountView = z.infer<typeof accountView>;

export const patchAccountBody = z.strictObject({
  auto_recharge: z.strictObject({
    enabled: z.boolean().describe('An agent may turn auto-recharge off; turning it on needs the owner.'),
  }),
});

export const deleteAccountResponse = z.object({
  status: z.literal('pending_deletion'),
  detail: z.string(),
  ...ownerLink,
});
