import Joi from 'joi';

/** GET /v1/admin/usage: whose usage (an account id). */
export const adminUsageQuery = Joi.object<{ account: string }>({
  account: Joi.string().guid().required(),
});
