import Joi from 'joi';
import { RouteDocs, shape } from '../../openapi/route-docs';
import { registerBody } from './auth.schemas';

export const authOpenApi: RouteDocs = {
  'POST /v1/auth/register': {
    summary: 'Register an account and get its first API key',
    body: registerBody,
    example: { email: 'me@example.com', password: 'a long passphrase' },
    errors: { 409: 'An account with that email exists' },
    responses: { 201: { description: 'The account and its admin key', schema: shape({ account_id: Joi.string().guid(), api_key: Joi.string(), api_key_id: Joi.string().guid() }) } },
  },
};
